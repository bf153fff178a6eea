#!/usr/bin/env python3
"""lab_audit.py — re-derive every number and claim of a lab report from its data.

usage: lab_audit.py DIR [--plots PLOTS_DIR] [--readme README.md]

DIR holds what `fplab lab --out DIR` wrote: REPORT.md and the .dat files.
Every number in REPORT.md, and every claim sentence, is recomputed here from
the .dat files by routes of this script's own (Python's standard library:
exact rationals for the rounding tables, IEEE half precision from `struct`
for the binary16 facts, the formats' defining formulas for the atlas,
Student's t by its finite series for integer degrees of freedom, Holm's
adjustment, two one-sided tests and the power formula for the training
comparisons, the bit-identical merges from the runs' hashes), never by
calling fplab.  A sentence the script does not recognise, a number it did not
verify, or a claim its data contradicts is a failure.

With --plots, the policy lists of the training plot scripts are checked
against the data files as well.  With --readme, the README's "What the lab
shows" section is checked against DIR, which must then be a full lab
(`fplab lab`, seed 1, not --quick) with every experiment.

Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage or
missing files.  Run it on a full lab output with
    scripts/lab.sh && python3 tests/lab_audit.py out
"""
import math
import os
import re
import statistics
import struct
import sys
from fractions import Fraction

# ---------------------------------------------------------------------------
# reading


class Dat:
    """A lab data file: '#' header lines and whitespace-separated rows in
    blocks separated by two blank lines."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.comments = [l for l in text.splitlines() if l.startswith("#")]
        self.blocks = []
        for chunk in re.split(r"\n[ \t]*\n[ \t]*\n", text):
            rows = [l.split() for l in chunk.splitlines()
                    if l.strip() and not l.startswith("#")]
            self.blocks.append(rows)
        # a trailing separator gives an empty last block
        while len(self.blocks) > 1 and not self.blocks[-1]:
            self.blocks.pop()
        self.header = {}
        for l in self.comments:
            m = re.match(r"# (\w[\w ]*?): (.*)$", l)
            if m and m.group(1) not in self.header:
                self.header[m.group(1)] = m.group(2)
        m = re.match(r"# fplab (\S+): ", self.comments[0]) if self.comments else None
        self.version = m.group(1) if m else None

    def param(self, key):
        m = re.search(r"(?:^| )" + re.escape(key) + r"=(\S+)", self.header.get("params", ""))
        return m.group(1) if m else None

    def comment(self, prefix):
        for l in self.comments:
            if l.startswith(prefix):
                return l[len(prefix):]
        return None


# ---------------------------------------------------------------------------
# the report and its coverage

NUM = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
TOKEN = re.compile(r"(?<![A-Za-z_0-9.])\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def pat(template, flow=False):
    """A regular expression from a template: {N} a number, {I} an integer,
    {P} a power of two 2^k (k may have decimals), {W} a word without
    spaces or '|', {C} a table cell's text, {S} any text within one line
    (shortest); everything else literal.  With flow (prose that may be
    re-wrapped, as the README's), every run of white space in the literal
    text matches any run of white space, and {S} may span lines."""
    def lit(t):
        if not flow:
            return re.escape(t)
        return r"\s+".join(re.escape(w) for w in re.split(r"\s+", t))
    out = []
    pos = 0
    for m in re.finditer(r"\{([NIPWCS])\}", template):
        out.append(lit(template[pos:m.start()]))
        out.append({"N": "(" + NUM + "|inf|nan)", "I": r"(-?\d+)",
                    "P": r"2\^(-?\d+(?:\.\d+)?)", "W": r"([^\s|]+)",
                    "C": r"([^|\n]*?)",
                    "S": r"(\S[^|]*?)" if flow else r"([^\n]+?)"}[m.group(1)])
        pos = m.end()
    out.append(lit(template[pos:]))
    return "".join(out)


class Audit:
    def __init__(self, report_path, text=None, flow=False):
        if text is None:
            with open(report_path, encoding="utf-8") as f:
                text = f.read()
        self.text = text
        self.flow = flow
        self.covered = bytearray(len(self.text))
        self.fails = []
        self.checks = 0

    # -- bookkeeping
    def ok(self, cond, what):
        self.checks += 1
        if not cond:
            self.fails.append(what)
        return cond

    def take(self, template, what, regex=False, count=1, start=0, end=None):
        """Find the template in the report (exactly `count` times, or at
        least once for count=None), mark it covered, return the matches."""
        rx = re.compile(template if regex else pat(template, self.flow), re.M)
        hay_end = len(self.text) if end is None else end
        ms = list(rx.finditer(self.text, start, hay_end))
        self.checks += 1
        if not ms or (count is not None and len(ms) != count):
            self.fails.append("%s: expected %s match(es) of the sentence, found %d\n"
                              "    pattern: %s" % (what, count or "1+", len(ms),
                                                   template[:300]))
            return []
        for m in ms:
            for i in range(m.start(), m.end()):
                self.covered[i] = 1
        return ms

    def take1(self, template, what, **kw):
        ms = self.take(template, what, **kw)
        return ms[0] if ms else None

    # -- numbers
    @staticmethod
    def tol(s):
        m = re.fullmatch(r"[-+]?\d+(?:\.(\d*))?(?:e([-+]?\d+))?", s)
        if not m:
            return None
        dec = len(m.group(1) or "")
        e = int(m.group(2) or 0)
        return 0.5 * 10.0 ** (e - dec)

    def num(self, s, value, what, slack=0.0, rel=0.0):
        """The printed number s stands for value (within half a unit of its
        last printed digit, plus slack, plus rel*|value|)."""
        self.checks += 1
        if s in ("inf", "nan") or value is None or (isinstance(value, float) and
                                                   (math.isinf(value) or math.isnan(value))):
            good = (s == "inf" and value == math.inf) or (s == "nan" and value != value)
            if not good:
                self.fails.append("%s: report says %s, data gives %r" % (what, s, value))
            return good
        t = self.tol(s)
        if t is None:
            self.fails.append("%s: '%s' is not a number" % (what, s))
            return False
        good = abs(float(s) - value) <= t * (1 + 1e-6) + slack + rel * abs(value) + 1e-300
        if not good:
            self.fails.append("%s: report says %s, data gives %.10g" % (what, s, value))
        return good

    def word(self, got, want, what):
        self.checks += 1
        if got != want:
            self.fails.append("%s: report says '%s', data gives '%s'" % (what, got, want))
            return False
        return True

    def uncovered_numbers(self):
        bad = []
        for m in TOKEN.finditer(self.text):
            if not all(self.covered[m.start():m.end()]):
                line_no = self.text.count("\n", 0, m.start()) + 1
                line = self.text.splitlines()[line_no - 1]
                bad.append("line %d: number '%s' not verified by the audit: %s"
                           % (line_no, m.group(0), line[:160]))
        return bad


# ---------------------------------------------------------------------------
# independent arithmetic

def half_round(x):
    """x rounded to IEEE binary16 (round to nearest even), by struct."""
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return math.inf if x > 0 else -math.inf


HALF_MAX = struct.unpack("<e", bytes.fromhex("ff7b"))[0]          # 65504
HALF_BELOW_ONE = struct.unpack("<e", bytes.fromhex("ff3b"))[0]    # 1 - 2^-11


def half_spacing(v):
    """The spacing of binary16 numbers at v > 0 (normal range)."""
    return 2.0 ** (math.floor(math.log2(v)) - 10)


def exact_dec(fr):
    """A Fraction with a power-of-two denominator as an exact decimal."""
    if fr.denominator == 1:
        return str(fr.numerator)
    sign = "-" if fr < 0 else ""
    fr = abs(fr)
    k = fr.denominator.bit_length() - 1
    assert fr.denominator == 1 << k
    digits = str(fr.numerator * 5 ** k).rjust(k + 1, "0")
    s = digits[:-k] + "." + digits[-k:]
    return sign + s.rstrip("0").rstrip(".")


def ilog2(fr):
    """floor(log2(fr)) for a positive Fraction, exactly."""
    e = fr.numerator.bit_length() - fr.denominator.bit_length()
    if Fraction(2) ** e > fr:
        e -= 1
    if Fraction(2) ** (e + 1) <= fr:
        e += 1
    return e


def round_half_exact(x, mode):
    """Round the rational x into binary16 (p = 11, emin = -14, emax = 15) in
    mode rne rna rtz rdn rup rto; returns (value or +-inf, flags 'xuo')."""
    if x == 0:
        return Fraction(0), ""
    neg = x < 0
    a = -x if neg else x

    def rnd(a, e):
        q = Fraction(2) ** (e - 10)
        n = a / q
        f = n.numerator // n.denominator
        rem = n - f
        if rem == 0:
            return f * q, False
        up = {"rne": rem > Fraction(1, 2) or (rem == Fraction(1, 2) and f % 2 == 1),
              "rna": rem >= Fraction(1, 2),
              "rtz": False,
              "rdn": neg,
              "rup": not neg,
              "rto": f % 2 == 0}[mode]
        return (f + 1 if up else f) * q, True

    e = ilog2(a)
    # tininess after rounding: rounded to 11 bits with unbounded exponent
    r_unb, _ = rnd(a, e)
    tiny = r_unb < Fraction(2) ** -14
    r, inexact = rnd(a, max(min(e, 15), -14))
    flags = ""
    if r >= 2 ** 16:          # overflow
        to_inf = {"rne": True, "rna": True, "rtz": False, "rdn": neg, "rup": not neg,
                  "rto": False}[mode]
        r = math.inf if to_inf else Fraction(65504)
        flags = "xo"
    elif inexact:
        flags = "xu" if tiny else "x"
    if neg:
        r = -r
    return r, flags


T975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
        2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    """Student's t(0.975, df): the table for df <= 30, then the first terms
    of Fisher's expansion in 1/df."""
    if df <= 30:
        return T975[df]
    z = 1.959963984540054
    v = float(df)
    return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v * v)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3))


def mean_sd(x):
    m = statistics.fmean(x)
    return m, (statistics.stdev(x) if len(x) > 1 else 0.0)


def paired(a, b):
    """The lab's rule on per-seed values a, b: (word, mean d, half-width)."""
    d = [x - y for x, y in zip(a, b)]
    m, s = mean_sd(d)
    h = t975(len(d) - 1) * s / math.sqrt(len(d))
    if all(x == 0 for x in d):
        return "identical", m, h
    if m - h > 0:
        return "higher", m, h
    if m + h < 0:
        return "lower", m, h
    return "not shown", m, h


# ---------------------------------------------------------------------------
# sections

SECTIONS = [("atlas", "Format atlas: spacing and range of the formats"),
            ("rounding", "Rounding lab: modes, stochastic rounding, associativity"),
            ("gradhist", "Gradient histograms versus loss scale"),
            ("lost", "Lost updates: swamping of small weight updates"),
            ("accum", "Accumulation: fp16 versus fp32 sums and dot products"),
            ("training", "Training curves per precision policy"),
            ("scaling", "Scale granularity: per tensor, per block, and loss scaling"),
            ("trainaccum", "Accumulation in training: binary16 against binary32 sums"),
            ("trainsr", "Stochastic rounding in training: weights without a master copy"),
            ("trainlm", "Loss scaling in a character language model")]


def section_span(A, title):
    m = re.search(r"^## \d+\. " + re.escape(title) + r"\n", A.text, re.M)
    if not m:
        return None
    n = re.search(r"^## \d+\. ", A.text[m.end():], re.M)
    return m.start(), (m.end() + n.start() if n else len(A.text))


def check_preamble(A, d, dats, figures):
    any_dat = next(iter(dats.values()))
    seed = any_dat.header.get("seed")
    quick = any_dat.param("quick") == "1"
    m = A.take1("fplab {W}, seed {I}" + (", quick mode (small sizes)" if quick else "")
                + ".  Every number below was measured by this run; the data behind each "
                "figure is in the `.dat` files beside this report, each with a `#` header "
                "(seed, formats, parameters, version). The same seed reproduces the same "
                "data bytes.", "preamble")
    if m:
        A.word(m.group(1), any_dat.version, "preamble: version")
        A.word(m.group(2), seed, "preamble: seed")
    for name, f in dats.items():
        A.ok(f.header.get("seed") == seed, "%s: seed %s differs from the report's %s"
             % (name, f.header.get("seed"), seed))
        A.ok(f.version == any_dat.version, "%s: version differs" % name)
        A.ok(f.param("quick") == any_dat.param("quick"), "%s: quick differs" % name)
    drawn = re.findall(r"^!\[(\w+)\]\((\w+)\.png\)$", A.text, re.M)
    m = re.search(r"^Figures: (\d+) of (\d+) plotted \(PNG shown, SVG linked\)\.$",
                  A.text, re.M)
    if m:
        A.take1("Figures: {I} of {I} plotted (PNG shown, SVG linked).", "figure count")
        A.num(m.group(1), len(drawn), "figures plotted")
        A.num(m.group(2), figures, "figures in the report")
        for stem, stem2 in drawn:
            A.ok(stem == stem2, "image %s links %s.png" % (stem, stem2))
            for ext in ("png", "svg"):
                A.ok(os.path.getsize(os.path.join(d, stem + "." + ext)) > 0
                     if os.path.exists(os.path.join(d, stem + "." + ext)) else False,
                     "figure file %s.%s missing or empty" % (stem, ext))
    else:
        A.take1(r"\*\*Note:\*\* (plots not requested \(--no-plots\)|gnuplot not found: "
                r"plots skipped, data and report written)\.", "plot note", regex=True)
    # headings: numbered in order, known titles
    heads = re.findall(r"^## (\d+)\. (.+)$", A.text, re.M)
    titles = [t for _, t in SECTIONS]
    A.ok([int(n) for n, _ in heads] == list(range(1, len(heads) + 1)),
         "section numbers are not 1..%d" % len(heads))
    A.ok([t for _, t in heads] == [t for t in titles if t in [h for _, h in heads]],
         "section titles unknown or out of order: %r" % [t for _, t in heads])
    A.take(r"^## \d+\. .+$", "headings", regex=True, count=None)
    # every listed data file exists
    for m in re.finditer(r"^Data:((?: `[\w.]+`)+)$", A.text, re.M):
        for name in re.findall(r"`([\w.]+)`", m.group(1)):
            A.ok(os.path.exists(os.path.join(d, name)), "listed data file %s missing" % name)


# ---- 1. atlas --------------------------------------------------------------

# (ebits, precision, OCP E4M3-style: no infinity, only S.1111.111 is NaN)
FORMATS = {"binary16": (5, 11, False), "bfloat16": (8, 8, False),
           "binary32": (8, 24, False), "fp8-e4m3": (4, 4, True), "fp8-e5m2": (5, 3, False)}


def fmt_range(name):
    """(min subnormal, min normal, max, epsilon) from the defining formulas."""
    e, p, ocp = FORMATS[name]
    emax = 2 ** (e - 1) - 1
    emin = 1 - emax
    minsub = Fraction(2) ** (emin - p + 1)
    minnorm = Fraction(2) ** emin
    if ocp:   # OCP OFP8 E4M3: the all-ones exponent holds normals up to 1.75 * 2^8
        mx = (2 - Fraction(2) ** (2 - p)) * Fraction(2) ** (emax + 1)
    else:
        mx = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    return minsub, minnorm, mx, Fraction(2) ** (1 - p)


def g3(x):
    return "%.3g" % x


def check_atlas(A, d, span):
    ranges = Dat(os.path.join(d, "atlas_ranges.dat"))
    ulp = Dat(os.path.join(d, "atlas_ulp.dat"))
    ieee = Dat(os.path.join(d, "atlas_ieee43.dat"))
    s0, s1 = span
    A.take1("Spacing and range are read from the core (next_up on actual bit patterns), "
            "not from formulas.", "atlas intro", start=s0, end=s1)
    A.take1("| format | precision p | smallest subnormal | smallest normal | largest finite "
            "| epsilon = ulp(1) | binades covered |", "atlas table header", start=s0, end=s1)
    names = ulp.header["formats"].split()
    A.ok(names == list(FORMATS), "atlas formats %r" % names)
    for i, row in enumerate(ranges.blocks[0]):
        name = row[0]
        minsub, minnorm, mx, eps = fmt_range(name)
        e, p, _ = FORMATS[name]
        A.ok(int(row[1]) == e and int(row[2]) == p, "%s: ebits/precision %s %s" % (name, row[1], row[2]))
        for k, (v, want) in enumerate(zip(row[3:7], (minsub, minnorm, mx, eps))):
            A.num(v, float(want), "atlas_ranges.dat %s column %d" % (name, k + 4), rel=1e-8)
        bins = math.log2(mx / minsub)
        A.num(row[7], bins, "atlas_ranges.dat %s binades", slack=0)
        m = A.take1("| " + name + " | {I} | {N} (2^{I}) | {N} (2^{I}) | {N} | {N} (2^{I}) | {I} |",
                    "atlas table row " + name, start=s0, end=s1)
        if m:
            A.num(m.group(1), p, name + " precision")
            for (gs, gk, want) in ((2, 3, minsub), (4, 5, minnorm), (7, 8, eps)):
                A.word(m.group(gs), g3(float(want)), name + " table value")
                A.num(m.group(gk), math.log2(want), name + " table exponent")
            A.word(m.group(6), "%.6g" % float(mx), name + " largest finite")
            A.num(m.group(9), bins, name + " binades")
        # the spacing per binade, against the formulas
        blk = ulp.blocks[i]
        A.ok(len(blk) > 0, "atlas_ulp.dat block %d empty" % i)
        emin = math.log2(minnorm)
        for r in blk:
            x, gx, rx, top, gt, rt = (Fraction(float(v)) for v in r)
            k = ilog2(x)
            want = Fraction(2) ** (max(k, emin) - p + 1)
            A.ok(x == Fraction(2) ** k and gt == want and (gx == want or top == mx),
                 "atlas_ulp.dat %s row %s: spacing %s, formula %s" % (name, r[0], r[4], want))
            if k >= emin:   # normal: between 2^-p and 2^(1-p)
                A.ok(Fraction(2) ** -p < rt <= rx <= Fraction(2) ** (1 - p),
                     "atlas %s: relative spacing at %s outside (2^-p, 2^(1-p)]" % (name, r[0]))
        A.ok(float(blk[0][0]) == float(minsub) and float(blk[0][2]) == 1.0,
             "atlas %s: the first binade does not start at the smallest subnormal with "
             "relative spacing 1" % name)
        A.ok(float(blk[-1][3]) == float(mx), "atlas %s: the last binade does not end at the max" % name)
    m = A.take1("*Figure atlas*", "atlas figure", count=1, start=s0, end=s1)
    m = A.take1("Relative spacing ulp(x)/x of the representable numbers against magnitude x "
                "(log-log) for the five formats, over the full range (left) and zoomed to "
                "2^-26 .. 2^17 (right), where the 16- and 8-bit formats live; each format's "
                "smallest subnormal (triangle), smallest normal (circle) and largest finite "
                "value (square) are marked.  Over a "
                "format's normal range the relative spacing stays between 2^-p and 2^(1-p), "
                "its precision; below the smallest normal it rises to 1 at the smallest "
                "subnormal (precision lost to gradual underflow).  fp16 reaches only {N} but "
                "resolves ulp(1) = 2^{I}; bf16 keeps fp32's range (max {N}) with ulp(1) = 2^{I}.",
                "atlas caption", start=s0, end=s1)
    if m:
        A.num(m.group(1), float(fmt_range("binary16")[2]), "fp16 max")
        A.num(m.group(2), -10, "fp16 ulp(1)")
        A.num(m.group(3), float(fmt_range("bfloat16")[2]), "bf16 max")
        A.num(m.group(4), -7, "bf16 ulp(1)")
        A.ok(FORMATS["bfloat16"][0] == FORMATS["binary32"][0] and
             fmt_range("bfloat16")[2] / fmt_range("binary32")[2] > Fraction(99, 100),
             "bf16 does not keep fp32's range")
    # ieee:4:3
    vals = {}
    for r in ieee.blocks[0]:
        b = int(r[0], 16)
        E, M = (b >> 3) & 15, b & 7
        A.ok(int(r[1]) == E and int(r[2]) == M, "atlas_ieee43.dat 0x%02X fields" % b)
        sign = -1 if b & 128 else 1
        if E == 15:
            want = ("inf" if sign > 0 else "-inf") if M == 0 else "nan"
            cls = "infinity" if M == 0 else "nan"
        elif E == 0:
            v = sign * Fraction(M, 8) * Fraction(2) ** -6
            want = exact_dec(v) if not (v == 0 and sign < 0) else "-0"
            cls = "zero" if M == 0 else "subnormal"
        else:
            want = exact_dec(sign * (1 + Fraction(M, 8)) * Fraction(2) ** (E - 7))
            cls = "normal"
        A.ok(r[4] == want or (want == "nan" and r[4].lstrip("+-").startswith("nan"))
             or (want == "-0" and r[4] in ("-0", "-0.0")),
             "atlas_ieee43.dat 0x%02X: %s, formula %s" % (b, r[4], want))
        A.ok(cls in r[3].lower(), "atlas_ieee43.dat 0x%02X class %s, formula %s" % (b, r[3], cls))
        vals[b] = want
    m = A.take1("The textbook format ieee:4:3 (bias {I}): {I} positive finite nonzero values, "
                "{I} of them subnormal, largest {N}, {I} NaN patterns per sign. Row = exponent "
                "field, column = fraction field (positive half; the negative half mirrors it; "
                "full list in atlas_ieee43.dat):", "ieee:4:3 sentence", start=s0, end=s1)
    if m:
        for g, want, what in ((1, 7, "bias"), (2, 14 * 8 + 7, "finite nonzero"),
                              (3, 7, "subnormal"), (4, 240, "largest"), (5, 7, "NaN patterns")):
            A.num(m.group(g), want, "ieee:4:3 " + what)
    A.take1("| E \\ M | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |", "ieee:4:3 grid header", start=s0, end=s1)
    for E in range(16):
        cells = [vals[(E << 3) | M] for M in range(8)]
        A.take1("| %d | %s |" % (E, " | ".join(cells)), "ieee:4:3 grid row %d" % E,
                start=s0, end=s1)


# ---- 2. rounding -------------------------------------------------------------

def check_rounding(A, d, span):
    s0, s1 = span
    ex = Dat(os.path.join(d, "rounding_examples.dat"))
    sr = Dat(os.path.join(d, "rounding_sr.dat"))
    asc = Dat(os.path.join(d, "rounding_assoc.dat"))
    A.take1("Each input is parsed and rounded once, correctly, into binary16 (fl_parse); "
            "results shown to 6 digits (exact values in the data file). Flags: x inexact, "
            "u underflow, o overflow.", "rounding intro", start=s0, end=s1)
    modes = ["rne", "rna", "rtz", "rdn", "rup", "rto"]
    A.take1("| input | what it shows | rne | rna | rtz | rdn | rup | rto |", "examples header",
            start=s0, end=s1)
    byinput = {}
    for r in ex.blocks[0]:
        inp, mode, val, bits, flags = r
        want, wflags = round_half_exact(Fraction(inp), mode)
        wstr = ("inf" if want > 0 else "-inf") if isinstance(want, float) else exact_dec(want)
        A.ok(val == wstr or (wstr == "0" and val in ("0", "-0")),
             "rounding_examples.dat %s %s: %s, exact rounding gives %s" % (inp, mode, val, wstr))
        A.ok(flags == (wflags or "-"), "rounding_examples.dat %s %s flags %s, expected %s"
             % (inp, mode, flags, wflags or "-"))
        byinput.setdefault(inp, {})[mode] = (want, wflags or "-")
    # the report's rows
    rows = re.findall(r"^\| (\S+) \| ([^|]+) \|((?: [^|]+ \|){6})$", A.text[s0:s1], re.M)
    seen = 0
    for inp, what, cells in rows:
        if inp not in byinput:
            continue
        seen += 1
        got = [c.strip() for c in cells.strip(" |").split(" | ")]
        for mode, cell in zip(modes, got):
            want, fl = byinput[inp][mode]
            wv = float(want) if not isinstance(want, float) else want
            wtxt = ("inf" if wv > 0 else "-inf") if math.isinf(wv) else "%.6g" % wv
            A.word(cell, "%s %s" % (wtxt, fl), "rounding table %s %s" % (inp, mode))
        A.take1("| %s | %s |%s" % (inp, what, cells), "rounding row " + inp, start=s0, end=s1)
    A.ok(seen == len(byinput) == 10, "rounding table has %d of %d inputs" % (seen, len(byinput)))

    # stochastic rounding
    rows = sr.blocks[0]
    n = int(rows[0][7])
    A.ok(sr.param("trials") == str(n), "rounding_sr.dat trials")
    zmax = bias = sdev = 0.0
    q30 = None
    for r in rows:
        q, p, mean, sd, ideal, rne = map(float, r[:6])
        up, trials = int(r[6]), int(r[7])
        A.ok(trials == n and abs(p - up / trials) < 1e-6, "rounding_sr.dat q=%s P(up)" % r[0])
        A.ok(abs(mean - (p - q)) < 2e-6, "rounding_sr.dat q=%s: mean error is not P(up) - q" % r[0])
        A.ok(abs(ideal - math.sqrt(q * (1 - q))) < 1e-6, "rounding_sr.dat q=%s ideal" % r[0])
        A.ok(abs(rne - (-q if q <= 0.5 else 1 - q)) < 1e-6,
             "rounding_sr.dat q=%s: round-to-nearest error %s" % (r[0], r[5]))
        zmax = max(zmax, abs((up / trials - q) / math.sqrt(q * (1 - q) / trials)))
        bias = max(bias, abs(up / trials - q))
        sdev = max(sdev, abs(sd / ideal - 1))
        if r[0] == "0.30":
            q30 = sd
    A.ok(len(rows) == 19, "rounding_sr.dat has %d values of q" % len(rows))
    A.take1("*Figure rounding_sr*", "sr figure", start=s0, end=s1)
    m = A.take1("Stochastic rounding of x = 1 + q·2^-10 into binary16, {I} roundings per q.  "
                "The measured probability of rounding up {S} q: z = (P(up) - q)/sqrt(q(1-q)/{I}), "
                "in units of its binomial sampling error, stays within ±{N} over the 19 values "
                "of q (right).  One rounding errs by 1 - q ulp (up) or -q ulp (down), so the "
                "mean error is P(up) - q: at most {N} ulp in magnitude.  Round to nearest makes "
                "the same error every time, -q ulp for q <= 0.5 (q = 0.5 is a tie and rounds to "
                "the even 1) and 1 - q ulp above: a bias that repeated roundings accumulate.  "
                "The price of stochastic rounding is spread: standard deviation sqrt(q(1-q)) ulp "
                "(measured at q = 0.30: {N}; at every q within {N}% of sqrt(q(1-q))).",
                "sr caption", start=s0, end=s1)
    if m:
        A.num(m.group(1), n, "sr trials")
        A.word(m.group(2), "agrees with" if zmax <= 4 else "does NOT agree with", "sr agreement")
        A.num(m.group(3), n, "sr trials")
        A.num(m.group(4), zmax, "sr largest |z|", slack=1e-4)
        A.num(m.group(5), bias, "sr largest |mean error|", slack=2e-6)
        A.num(m.group(6), q30, "sr spread at 0.30", slack=1e-6)
        A.num(m.group(7), 100 * sdev, "sr spread deviation", slack=1e-3)
    # x = 1 + q 2^-10: the spacing of binary16 in [1, 2)
    A.ok(half_round(1 + 2 ** -10) == 1 + 2 ** -10 and half_round(1 + 2 ** -11) == 1,
         "binary16 spacing in [1, 2) is not 2^-10")

    # associativity
    m = A.take1("**Non-associativity.** In binary16, (2048 + 1) + 1 = {N} but 2048 + (1 + 1) = "
                "{N} (each 1 alone is a tie at 2048 and rounds to even).  On random triples "
                "from (-1, 1):", "associativity sentence", start=s0, end=s1)
    if m:
        A.num(m.group(1), half_round(half_round(2048 + 1) + 1), "(2048+1)+1")
        A.num(m.group(2), half_round(2048 + half_round(1 + 1)), "2048+(1+1)")
    A.take1("| format | triples | (a+b)+c != a+(b+c) |", "assoc header", start=s0, end=s1)
    for r in asc.blocks[0]:
        A.ok(abs(float(r[3]) - int(r[2]) / int(r[1])) < 1e-6, "rounding_assoc.dat %s" % r[0])
        m = A.take1("| %s | {I} | {N}%% |" % r[0], "assoc row " + r[0], start=s0, end=s1)
        if m:
            A.num(m.group(1), int(r[1]), "assoc triples")
            A.num(m.group(2), 100 * int(r[2]) / int(r[1]), "assoc fraction")
    blk = asc.blocks[1]
    exact = float(re.search(r"\(exact (\S+)\)", " ".join(asc.comments)).group(1))
    sums = {r[0]: float(r[1]) for r in blk}
    for r in blk:
        A.ok(abs(float(r[2]) - abs(float(r[1]) - exact) / exact) <= 1e-6 * abs(float(r[2])) + 1e-12,
             "rounding_assoc.dat %s relative error" % r[0])
    m = A.take1("The same {I} binary16 values summed in binary16: forward {N}, backward {N}, "
                "pairwise {N}; exact {N} (relative errors {N}, {N}, {N}).",
                "three orders", start=s0, end=s1)
    if m:
        A.num(m.group(1), int(re.search(r"one sum of (\d+)", " ".join(asc.comments)).group(1)),
              "number of values")
        for g, k in ((2, "forward"), (3, "backward"), (4, "pairwise")):
            A.num(m.group(g), sums[k], "sum " + k)
        A.num(m.group(5), exact, "exact sum")
        for g, k in ((6, "forward"), (7, "backward"), (8, "pairwise")):
            A.num(m.group(g), abs(sums[k] - exact) / exact, "relative error " + k)


# ---- 3. gradhist -------------------------------------------------------------

def check_gradhist(A, d, span):
    s0, s1 = span
    h = Dat(os.path.join(d, "gradhist.dat"))
    u = Dat(os.path.join(d, "gradhist_underflow.dat"))
    st = Dat(os.path.join(d, "gradhist_steps.dat"))
    sd = Dat(os.path.join(d, "gradhist_seeds.dat"))
    rows = [[int(x) for x in r] for r in u.blocks[0]]
    NS = len(rows)
    A.ok([r[0] for r in rows] == list(range(25)), "gradhist_underflow.dat scales 2^0..2^24")
    # columns: 1..6 weight gradients, 7..12 activation gradients (offset o)
    live = lambda r, o: r[1 + o] - r[2 + o] - r[3 + o]
    for r in rows:
        A.ok(r[1:4] == rows[0][1:4] and r[7:10] == rows[0][7:10],
             "gradhist_underflow.dat: totals change with S")
        for o in (0, 6):
            A.ok(r[4 + o] + r[5 + o] + r[6 + o] <= live(r, o), "gradhist_underflow.dat classes")
    for o in (0, 6):
        A.ok(all(rows[k + 1][4 + o] <= rows[k][4 + o] for k in range(24)),
             "underflow does not fall with S")
        A.ok(all(rows[k + 1][6 + o] >= rows[k][6 + o] for k in range(24)),
             "overflow does not grow with S")
    pct = lambda r, c, o: 100.0 * r[c + o] / live(r, o) if live(r, o) else 0.0
    # block 1: per layer; block 0 is its sum over the layers
    lay = {}
    for r in u.blocks[1]:
        lay[(int(r[0]), r[2], int(r[3]))] = [int(x) for x in r[4:]]
    layers = sorted({k[2] for k in lay})
    NL = len(layers)
    last = layers[-1]
    for r in rows:
        for o, kind in ((0, "wgrad"), (6, "agrad")):
            sums = [sum(lay[(r[0], kind, l)][i] for l in layers) for i in range(6)]
            A.ok(sums == r[1 + o:7 + o], "gradhist_underflow.dat: block 0 at 2^%d is not the "
                 "sum of the layers (%s)" % (r[0], kind))
    llive = lambda v: v[0] - v[1] - v[2]
    # every step: the steps file holds each step's amax, and the sweep must
    # overflow at S exactly where some step's amax * S rounds to infinity in
    # binary16 (struct's half precision): the overflow facts from every step
    steps_n = int(re.search(r"steps=(\d+) \(every step\)", u.header["params"]).group(1))
    A.ok(f"steps={steps_n}" in h.header["params"], "gradhist.dat: not every step")
    srows = [[float(x) for x in r] for r in st.blocks[0]]
    A.ok([int(r[0]) for r in srows] == list(range(steps_n)), "gradhist_steps.dat: not every step")
    A.ok(len(srows[0]) == 1 + 2 * NL + 2, "gradhist_steps.dat: columns")
    amax = {("wgrad", l): [r[1 + l] for r in srows] for l in layers}
    amax.update({("agrad", l): [r[1 + NL + l] for r in srows] for l in layers})
    gs_scale = [r[1 + 2 * NL] for r in srows]
    gs_skip = [int(r[2 + 2 * NL]) for r in srows]
    ovf = lambda a, k: math.isinf(half_round(a * 2.0 ** k))
    first = {}
    for o, kind in ((0, "wgrad"), (6, "agrad")):
        first[kind] = next((r[0] for r in rows if r[6 + o]), None)
        for r in rows:
            any_step = any(ovf(amax[(kind, l)][t], r[0]) for l in layers for t in range(steps_n))
            A.ok(any_step == (r[6 + o] > 0), "gradhist: %s overflow at 2^%d does not follow from "
                 "every step's amax" % (kind, r[0]))
    # the rule of fplab hist: no overflow, then fewest underflows
    best = None
    for r in rows:
        if r[6] + r[12] == 0 and (best is None or r[4] + r[10] < best[4] + best[10]):
            best = r
    # ---- the histograms: fractions of all values; bins + outside = 1
    hb = {int(r[0]): [float(x) for x in r[1:]] for r in h.blocks[0]}
    out = {r[0]: [float(x) for x in r[1:]] for r in h.blocks[1]}
    A.ok(sorted(out) == ["above", "below", "nonfinite", "zero"], "gradhist.dat block 1 rows")
    for c in range(16):
        tot = sum(v[c] for v in hb.values()) + sum(v[c] for v in out.values())
        A.ok(abs(tot - 1) < 1e-4, "gradhist.dat column %d does not sum to 1 (%g)" % (c + 2, tot))
    # scaling by a power of two shifts the what-if bins exactly
    for col, shift in ((1, 3), (2, 10), (3, 16)):
        for b in hb:
            if b - shift in hb and b - shift > -50:
                A.ok(hb[b][col] == hb[b - shift][0] and hb[b][col + 4] == hb[b - shift][4],
                     "gradhist.dat: S = 2^%d does not shift the bins by %d" % (shift, shift))
                break
    # the binary32 zeros are the same at every S; against the sweep's count
    for c, o in ((0, 0), (4, 6)):
        A.ok(all(out["zero"][c + i] == out["zero"][c] for i in range(4)), "gradhist: zeros vary with S")
        A.num("%.6e" % out["zero"][c], rows[0][2 + o] / rows[0][1 + o], "gradhist zero share")
    # underflow at S = 1 against the histogram: |g| < 2^-25 rounds to 0, bin -25 may
    for o, c in ((0, 0), (6, 4)):
        tot = rows[0][1 + o]
        below = (sum(v[c] for b, v in hb.items() if b <= -26) + out["below"][c]) * tot
        edge = hb[-25][c] * tot
        f = rows[0][4 + o]
        A.ok(below - 1e-5 * tot <= f <= below + edge + 1e-5 * tot,
             "gradhist: underflow %d not between the histogram's %g and %g" % (f, below, below + edge))
    # the fp16 runs: block 2 counts
    real = {}
    for r in h.blocks[2]:
        real[(int(r[0]), r[1])] = [int(x) for x in r[2:]]
    KS = (0, 3, 10, 16)
    for k in KS:
        for kind, c in (("wgrad", 8), ("agrad", 12)):
            tot, lv, fl, zero, over = real[(k, kind)][:5]
            A.ok(fl <= lv <= tot and zero >= fl and zero <= tot, "gradhist.dat block 2 counts")
            A.num("%.6e" % out["zero"][c + KS.index(k)], zero / tot, "fp16 run zero share")
    # ---- the report
    params = re.match(r"quick=\d (.*?) steps=\d+ \(every step\)", u.header["params"]).group(1)
    seeds_hdr = re.search(r"seeds=(\d+)\.\.(\d+)", sd.header["params"])
    sfirst, slast = int(seeds_hdr.group(1)), int(seeds_hdr.group(2))
    m = A.take1("Setting: {S} (the *deep* setting of section 6).  The binary32 run of the first "
                "seed is watched at every step ({I} steps: {I} weight-gradient values and {I} "
                "activation-gradient values, the gradients with respect to each layer's output); "
                "{N}% of the activation gradients and {N}% of the weight gradients are exactly "
                "zero in binary32.  Beside it, with the same initialisation and batches: fp16 runs "
                "with a static loss scale S = 1, 8, 1024 and 65536 (fp16-static:S, the real "
                "backward pass at each scale of the histograms), and fp16 with GradScaler "
                "(fp16-torch-i50, growth interval 50); binary32 and GradScaler also on seeds {I} "
                "to {I}.", "gradhist setting", start=s0, end=s1)
    if m:
        A.word(m.group(1), params, "gradhist setting parameters")
        A.num(m.group(2), steps_n, "gradhist steps")
        A.num(m.group(3), rows[0][1], "weight-gradient values")
        A.num(m.group(4), rows[0][7], "activation-gradient values")
        A.num(m.group(5), 100.0 * rows[0][8] / rows[0][7], "activation zeros")
        A.num(m.group(6), 100.0 * rows[0][2] / rows[0][1], "weight zeros")
        A.num(m.group(7), sfirst, "first seed")
        A.num(m.group(8), slast, "last seed")
        A.ok("depth=4" in params and "init_gain=0.25" in params and "batch=256" in params,
             "gradhist: not the deep setting")
        A.ok("data_seed=%d" % sfirst in params, "gradhist: the watched run is not the first seed's")
    # ---- the one flush definition, every seed
    fl = {}
    for r in sd.blocks[0]:
        fl[(int(r[0]), r[1], r[2], int(r[3]))] = (int(r[4]), int(r[5]))
    seeds = list(range(sfirst, slast + 1))
    A.ok(sorted({k[0] for k in fl}) == seeds, "gradhist_seeds.dat: seeds")
    gsrun = {int(r[0]): (int(r[1]), float(r[2])) for r in sd.blocks[1]}

    def share(seed, sc, kind, ls=None):
        ls = layers if ls is None else ls
        lv = sum(fl[(seed, sc, kind, l)][0] for l in ls)
        return (100.0 * sum(fl[(seed, sc, kind, l)][1] for l in ls) / lv) if lv else 0.0

    # the definition is the sweep's underflow class at S = 1 over every step:
    # the first seed's counts must be the watched run's, layer by layer
    for kind in ("wgrad", "agrad"):
        for l in layers:
            v = lay[(0, kind, l)]
            A.ok(fl[(sfirst, "s1", kind, l)] == (llive(v), v[3]),
                 "gradhist: the flush count of %s layer %d is not the sweep's at S = 1" % (kind, l))
    # GradScaler's skipped steps of the first seed, from the steps file
    A.ok(sum(gs_skip) == gsrun[sfirst][0], "gradhist: skipped steps differ between files")
    m = A.take1("**How many gradients flush, by one definition.**  The lab's flush share "
                "(`amp_flush`, the definition section 7 uses too): of a run's nonzero gradients, "
                "at every step and in every layer, the share that rounds to zero in binary16 at "
                "scale S.  For the binary32 runs at S = 1 (as if computed in fp16 without loss "
                "scaling) and at the scale GradScaler used at each step in the same seed's "
                "fp16-torch-i50 run:", "flush definition", start=s0, end=s1)
    A.take1("| seed | activation gradients, S = 1 | weight gradients, S = 1 | activation "
            "gradients, GradScaler's S | of those, in the last layer | GradScaler's skipped "
            "steps |", "flush table header", start=s0, end=s1)
    a1, w1, ags, parts, outs = [], [], [], [], []
    for seed in seeds:
        a1.append(share(seed, "s1", "agrad"))
        w1.append(share(seed, "s1", "wgrad"))
        ags.append(share(seed, "gs", "agrad"))
        tot_fl = sum(fl[(seed, "gs", "agrad", l)][1] for l in layers)
        in_last = fl[(seed, "gs", "agrad", last)][1]
        outs.append((tot_fl, tot_fl - in_last))
        parts.append(100.0 * in_last / tot_fl if tot_fl else 0.0)
        m = A.take1("| %d | {N}%% | {N}%% | {N}%% | {C} | {I} |" % seed, "flush row %d" % seed,
                    start=s0, end=s1)
        if m:
            A.num(m.group(1), a1[-1], "flush a S=1 seed %d" % seed)
            A.num(m.group(2), w1[-1], "flush w S=1 seed %d" % seed)
            A.num(m.group(3), ags[-1], "flush a gs seed %d" % seed)
            want = ("–" if tot_fl == 0 else "all" if tot_fl == in_last else
                    "%.2f%% (%d elsewhere)" % (parts[-1], tot_fl - in_last))
            A.word(m.group(4), want, "flush part in the last layer, seed %d" % seed)
            A.num(m.group(5), gsrun[seed][0], "skipped seed %d" % seed)
    m = A.take1("| mean ± sd | {N} ± {N}% | {N} ± {N}% | {N} ± {N}% | | |", "flush mean row",
                start=s0, end=s1)
    if m:
        for g, v in enumerate(list(mean_sd(a1)) + list(mean_sd(w1)) + list(mean_sd(ags)), 1):
            A.num(m.group(g), v, "flush mean/sd")
    f1 = lambda l: (100.0 * fl[(sfirst, "s1", "agrad", l)][1] / fl[(sfirst, "s1", "agrad", l)][0]
                    if fl[(sfirst, "s1", "agrad", l)][0] else 0.0)
    per = ",".join(" layer %d {N}%%" % l for l in layers)
    m = A.take1("Over the {I} seeds, {N}% to {N}% of the activation gradients flush at S = 1.  "
                "Per layer (seed {I}, S = 1):" + per + "; the last layer (the logits' gradient) "
                "holds {N}% of the flushed values.  ", "flush per layer", start=s0, end=s1)
    if m:
        A.num(m.group(1), len(seeds), "seeds")
        A.num(m.group(2), min(a1), "flush min")
        A.num(m.group(3), max(a1), "flush max")
        A.num(m.group(4), sfirst, "first seed")
        for i, l in enumerate(layers):
            A.num(m.group(5 + i), f1(l), "flush layer %d" % l)
        tf = sum(fl[(sfirst, "s1", "agrad", l)][1] for l in layers)
        A.num(m.group(5 + NL), 100.0 * fl[(sfirst, "s1", "agrad", last)][1] / tf if tf else 0.0,
              "flush part in the last layer")
    # the claim where the rest lives, as the data has it
    gs_total = sum(t for t, _ in outs)
    if gs_total == 0:
        claim = "At GradScaler's scale no activation gradient flushes.\n\n"
    elif all(o == 0 for _, o in outs):
        claim = ("At GradScaler's scale every flushed activation gradient of every seed lies in "
                 "the last layer.  Why the last layer: figure gradhist_underflow.\n\n")
    else:
        claim = None
        m = A.take1("At GradScaler's scale {N}% or more of each seed's flushed activation "
                    "gradients lie in the last layer.  Why the last layer: figure "
                    "gradhist_underflow.", "flush where", start=s0, end=s1)
        if m:
            A.num(m.group(1), min(p for p, (t, _) in zip(parts, outs) if t), "flush part min")
    if claim:
        A.take1(claim.strip(), "flush where", start=s0, end=s1)
    # ---- figure gradhist
    ws = {k: rows[k] for k in KS}
    wi = lambda k, o: "%.2f%%" % pct(ws[k], 4, o)
    rz = lambda k, kind: "%.2f%%" % (100.0 * real[(k, kind)][3] / real[(k, kind)][0])
    A.take1("*Figure gradhist*", "gradhist figure", start=s0, end=s1)
    want = ("Distribution of log2|g·S| over every step of the runs, in %% of all values (log "
            "scale), activation gradients (top) and weight gradients (bottom).  Left: the binary32 "
            "run's gradients multiplied by S = 1, 8, 1024, 65536 (a what-if); right: the real "
            "fp16 backward pass at the same static S, its gradients as rounded into binary16.  "
            "Shaded: binary16's subnormal range [2^-24, 2^-14) and normal range [2^-14, 65504]; "
            "magnitudes up to 2^-25 (dashed line, half the smallest subnormal) round to zero.  "
            "Bars on the left: values exactly zero, and values below 2^-50.  Left of the line, "
            "what-if: %s of the nonzero activation gradients and %s of the weight gradients at "
            "S = 1, 8, 1024, 65536; zero in the fp16 runs: %s of the activation gradients and "
            "%s of the weight gradients." % (
                ", ".join(wi(k, 6) for k in KS), ", ".join(wi(k, 0) for k in KS),
                ", ".join(rz(k, "agrad") for k in KS), ", ".join(rz(k, "wgrad") for k in KS)))
    A.take1(re.escape(want), "gradhist caption", regex=True, start=s0, end=s1)
    A.ok(half_round(2.0 ** -25) == 0 and half_round(2.0 ** -24) == 2.0 ** -24 and
         half_round(2.0 ** -14) == 2.0 ** -14 and HALF_MAX == 65504,
         "binary16 ranges in the caption")
    A.ok(int(re.search(r"bins=floor\(log2\|g\*S\|\) (-?\d+)\.\.", h.header["params"]).group(1)) == -50,
         "gradhist: the histogram does not start at 2^-50")
    # ---- what-if against the real pass
    A.take1("**The what-if against the real fp16 pass.**  Multiplying binary32 gradients by S "
            "ignores that in an fp16 run a flushed gradient is zero for every layer below it.  "
            "Activation gradients, at S = 1, 8, 1024, 65536:", "real intro", start=s0, end=s1)
    A.take1("| S | what-if: flushed | fp16 run: flushed | fp16 run: zero | binary32: zero | "
            "fp16 run: test accuracy |", "real header", start=s0, end=s1)
    for k in KS:
        tot, lv, flu, zero, over, div, corr, ntest = real[(k, "agrad")]
        m = A.take1("| 2^%d | {N}%% | {N}%% | {N}%% | {N}%% | {C} |" % k, "real row 2^%d" % k,
                    start=s0, end=s1)
        if m:
            A.num(m.group(1), pct(ws[k], 4, 6), "what-if flushed")
            A.num(m.group(2), 100.0 * flu / lv, "fp16 run flushed")
            A.num(m.group(3), 100.0 * zero / tot, "fp16 run zero")
            A.num(m.group(4), 100.0 * rows[0][8] / rows[0][7], "binary32 zero")
            if div:
                A.word(m.group(5), "diverged at step %d" % div, "fp16 run diverged")
            else:
                mm = re.fullmatch(r"(%s)%%" % NUM, m.group(5))
                if A.ok(mm is not None, "fp16 run accuracy cell"):
                    A.num(mm.group(1), 100.0 * corr / ntest, "fp16 run accuracy")
    A.take1("*What-if flushed*: of the binary32 run's nonzero activation gradients; *fp16 run: "
            "flushed*: of the fp16 run's own nonzero values, those its rounding into binary16 "
            "sent to zero (the same definition, on that run); *zero*: of all its "
            "activation-gradient values, those zero in binary16 (flushed here or below a "
            "gradient that flushed above).", "real footnote", start=s0, end=s1)
    # ---- overflow from every step
    A.take1("**Overflow, from every step's amax.**  Rounding into binary16 overflows where "
            "|g·S| >= 65520 (above 65504 by half a spacing or more).  ", "overflow intro",
            start=s0, end=s1)
    A.ok(math.isinf(half_round(65520.0)) and half_round(65519.99) == 65504, "binary16 overflow edge")
    kn = {"wgrad": "weight", "agrad": "activation"}
    for kind, o in (("wgrad", 0), ("agrad", 6)):
        # the largest amax (ties: the first layer, then the first step)
        a, l, t = max((amax[(kind, l)][t], -l, -t) for l in layers for t in range(steps_n))
        l, t = -l, -t
        k = first[kind]
        if k is None:
            m = A.take1("The %s gradients do not overflow up to S = 2^{I} (their largest amax, {N} "
                        "at step {I}, layer {I}).  " % kn[kind], "no overflow " + kind, start=s0, end=s1)
            if m:
                A.num(m.group(1), 24, "sweep end")
                A.num(m.group(2), a, "largest amax", rel=5e-4)
                A.num(m.group(3), t, "largest amax step")
                A.num(m.group(4), l, "largest amax layer")
            continue
        r = rows[k]
        nst = sum(1 for tt in range(steps_n) if any(ovf(amax[(kind, ll)][tt], k) for ll in layers))
        m = A.take1("The %s gradients overflow first at S = 2^{I}: their largest amax, {N} (step "
                    "{I}, layer {I}), times 2^{I} is {N}; at that scale {I} {W} overflow, {I} of {I} "
                    "nonzero values ({N}%%).  " % kn[kind], "overflow " + kind, start=s0, end=s1)
        if m:
            A.num(m.group(1), k, "first overflow " + kind)
            A.num(m.group(2), a, "largest amax " + kind, rel=5e-4)
            A.num(m.group(3), t, "largest amax step " + kind)
            A.num(m.group(4), l, "largest amax layer " + kind)
            A.num(m.group(5), k, "first overflow " + kind)
            A.num(m.group(6), a * 2.0 ** k, "amax times S " + kind)
            A.ok(a * 2.0 ** k >= 65520 and a * 2.0 ** (k - 1) < 65520,
                 "gradhist: %s amax times 2^%d does not first reach 65520 there" % (kind, k))
            A.num(m.group(7), nst, "overflowing steps " + kind)
            A.word(m.group(8), "step" if nst == 1 else "steps", "plural")
            A.num(m.group(9), r[6 + o], "overflow count " + kind)
            A.num(m.group(10), live(r, o), "overflow live " + kind)
            A.word(m.group(11), "%.2g" % pct(r, 6, o), "overflow percent " + kind)
    m = A.take1("Best power of two by the rule of `fplab hist` (no overflow at any step, then "
                "fewest underflows): S = 2^{I}.  ", "best S", start=s0, end=s1)
    if m and best:
        A.num(m.group(1), best[0], "best scale")
    # GradScaler's skipped steps against the binary32 amaxes (every step)
    mx = [max(amax[(kind, l)][t] * gs_scale[t] for kind in ("wgrad", "agrad") for l in layers)
          for t in range(steps_n)]
    skipped = [t for t in range(steps_n) if gs_skip[t]]
    agree = sum(1 for t in skipped if mx[t] >= 65520)
    missed = sum(1 for t in range(steps_n) if not gs_skip[t] and mx[t] >= 65520)
    pl = lambda n: "step" if n == 1 else "steps"
    if not skipped:
        m = A.take1("GradScaler (fp16-torch-i50, seed {I}) skipped no step; at {I} {W} the binary32 "
                    "run's largest gradient times GradScaler's scale reaches 65520.",
                    "GradScaler check", start=s0, end=s1)
        if m:
            A.num(m.group(1), sfirst, "GradScaler seed")
            A.num(m.group(2), missed, "missed")
            A.word(m.group(3), pl(missed), "plural")
    else:
        m = A.take1("Checked against GradScaler (fp16-torch-i50, seed {I}, the same initialisation "
                    "and batches), which skipped {I} {W}: {S} (in brackets: the binary32 run's "
                    "largest gradient times that S).  At {I} of them the binary32 gradients "
                    "overflow too; at {I} {W} that GradScaler did not skip they would have.",
                    "GradScaler check", start=s0, end=s1)
        if m:
            A.num(m.group(1), sfirst, "GradScaler seed")
            A.num(m.group(2), len(skipped), "skipped")
            A.word(m.group(3), pl(len(skipped)), "plural")
            want = ", ".join("step %d at S = 2^%d (%.0f)" % (t, round(math.log2(gs_scale[t])), mx[t])
                             for t in skipped)
            A.word(m.group(4), want, "GradScaler's skipped steps")
            A.ok(all(math.frexp(gs_scale[t])[0] == 0.5 for t in skipped), "GradScaler scale")
            A.num(m.group(5), agree, "agreeing skips")
            A.num(m.group(6), missed, "missed skips")
            A.word(m.group(7), pl(missed), "plural")
    # ---- figure gradhist_underflow
    bs = best[0] if best else 0
    hid = lambda s: [sum(lay[(s, "agrad", l)][i] for l in layers[:-1]) for i in range(6)]
    lst = lambda s: lay[(s, "agrad", last)]
    up = lambda v: 100.0 * v[3] / llive(v) if llive(v) else 0.0
    A.take1("*Figure gradhist_underflow*", "underflow figure", start=s0, end=s1)
    m = A.take1(pat("Fraction of the nonzero gradients of the binary32 run that underflow to zero, "
                "land in binary16's subnormal range, or overflow when multiplied by S = 2^0 .. "
                "2^24 and rounded into binary16, over every step; activation gradients (left) "
                "and weight gradients (right), all layers and each layer apart.  Underflow of "
                "activation gradients falls from {N}% at S = 1 to {N}% at S = 2^{I}, that of "
                "weight gradients from {N}% to {N}%.  ") + r"([^\n]+)$", "underflow caption",
                regex=True, start=s0, end=s1)
    if m:
        A.num(m.group(1), pct(rows[0], 4, 6), "activation underflow at 1")
        A.num(m.group(2), pct(rows[bs], 4, 6), "activation underflow at best")
        A.num(m.group(3), bs, "best scale")
        A.num(m.group(4), pct(rows[0], 4, 0), "weight underflow at 1")
        A.num(m.group(5), pct(rows[bs], 4, 0), "weight underflow at best")
        rest = m.group(6)
        h0, h1, l0, l1 = hid(0), hid(bs), lst(0), lst(bs)
        if not l0[3] or not h0[3] or bs == 0:
            want = ("The activation gradients underflow at S = 1 in the hidden layers %.2f%%, in "
                    "the last layer (the logits' gradient) %.2f%%." % (up(h0), up(l0)))
        else:
            fh = (up(h1) / up(h0)) ** (1.0 / bs)
            flast = (up(l1) / up(l0)) ** (1.0 / bs)
            want = ("In the hidden layers the activation gradients' underflow falls from %.2f%% at "
                    "S = 1 to %.4f%% at S = 2^%d (a factor of %.2f per doubling of S); in the last "
                    "layer (the logits' gradient) from %.2f%% to %.2f%% (%.2f per doubling)"
                    % (up(h0), up(h1), bs, fh, up(l0), up(l1), flast))
            want += (": the gradient of a logit is the softmax probability of its class (less 1 "
                     "for the true class) over the batch, and for the classes an example is sure "
                     "not to be those probabilities lie so many binades below 2^-25 that each "
                     "doubling of S lifts only a small part of them into binary16's range."
                     if flast > fh else ".")
        if rows[bs][10]:
            want += ("  At S = 2^%d the last layer holds %.2f%% of the activation gradients still "
                     "flushed." % (bs, 100.0 * l1[3] / rows[bs][10]))
        A.word(rest, want, "underflow caption: hidden against last layer")
    return {"flush": {seed: (a1[i], w1[i]) for i, seed in enumerate(seeds)}}


# ---- 4. lost updates ---------------------------------------------------------

PREC = {"binary16": 11, "bfloat16": 8, "binary32": 24}


def check_lost(A, d, span):
    s0, s1 = span
    lr = Dat(os.path.join(d, "lost_ratio.dat"))
    run = Dat(os.path.join(d, "lost_run.dat"))
    rows = [[float(x) for x in r] for r in lr.blocks[0]]
    per_oct = int(re.search(r"step 2\^\(1/(\d+)\)", lr.header["params"]).group(1))
    n_rn = int(lr.param("samples_rne"))
    n_sr = int(lr.param("samples_sr"))
    A.ok(len(rows) == 30 * per_oct + 1, "lost_ratio.dat ratios")
    for i, r in enumerate(rows):
        A.ok(abs(r[0] - 2.0 ** ((i - 30 * per_oct) / per_oct)) <= 1e-12 * r[0], "lost ratio grid")
    m = A.take1("**Round to nearest.**  A weight w = m·2^e (1 <= m < 2) of precision p has "
                "spacing 2^(e+1-p) above it, so an update dw = r·w is lost (w + dw == w) when "
                "|dw| is below half of that, i.e. when r < 2^-p/m: every update is lost for "
                "r <= 2^-(p+1), none for r > 2^-p, and with m uniform the lost fraction in "
                "between is 2^-p/r - 1.  Measured over {I} weights per ratio ({I} ratios per "
                "octave), *all lost up to* is the largest ratio up to which every measured "
                "ratio lost every update, *none lost from* the smallest from which none did:",
                "lost RN intro", start=s0, end=s1)
    if m:
        A.num(m.group(1), n_rn, "samples")
        A.num(m.group(2), per_oct, "per octave")
    A.take1("| weight format | p | all lost up to | theory 2^-(p+1) | none lost from | "
            "theory 2^-p | largest deviation from 2^-p/r - 1 |", "lost table header",
            start=s0, end=s1)
    edges = {}
    for c, name in enumerate(["binary16", "bfloat16", "binary32"], 1):
        p = PREC[name]
        col = [r[c] for r in rows]
        ia = -1
        while ia + 1 < len(col) and col[ia + 1] == 1.0:
            ia += 1
        inn = len(col)
        while inn - 1 >= 0 and col[inn - 1] == 0.0:
            inn -= 1
        ea = math.log2(rows[ia][0]) if ia >= 0 else None
        en = math.log2(rows[inn][0]) if inn < len(col) else None
        edges[name] = (ea, en)
        dev = max(abs(col[i] - min(1, max(0, 2.0 ** -p / rows[i][0] - 1))) for i in range(len(col)))
        m = A.take1("| %s | {I} | {S} | 2^-{I} | {S} | 2^-{I} | {N} |" % name,
                    "lost row " + name, start=s0, end=s1)
        if m:
            A.num(m.group(1), p, name + " p")
            A.word(m.group(2), "2^%.2f" % ea if ea is not None else "not reached", name + " all-lost edge")
            A.num(m.group(3), p + 1, name + " theory")
            A.word(m.group(4), "2^%.2f" % en if en is not None else "not reached", name + " none-lost edge")
            A.num(m.group(5), p, name + " theory")
            A.num(m.group(6), dev, name + " deviation", slack=1e-6)
        # the claim of the intro: all lost up to 2^-(p+1), none above 2^-p
        A.ok(ea is not None and ea >= -(p + 1) - 1e-9, "%s: an update survived at r <= 2^-%d" % (name, p + 1))
        A.ok(en is not None and all(col[i] == 0 for i in range(len(col)) if rows[i][0] > 2.0 ** -p),
             "%s: an update was lost at r > 2^-%d" % (name, p))
    # stochastic rounding: first where dw itself rounds to zero in binary16
    n_w = [r[4] for r in rows]
    dwz = [r[5] for r in rows]
    iz_all = -1
    while iz_all + 1 < len(rows) and dwz[iz_all + 1] == n_w[iz_all + 1]:
        iz_all += 1
    iz_none = len(rows)
    while iz_none - 1 >= 0 and dwz[iz_none - 1] == 0:
        iz_none -= 1
    # the claim's support: |dw| = r|w| rounds to zero in binary16 iff
    # r|w| <= 2^-25 (struct's half precision); |w| in [1, 16) gives every
    # weight for r <= 2^-29, none for r > 2^-25; in between, for m uniform on
    # [1, 2) and e uniform on 0..3, the share mean_e clamp(2^-25/(r 2^e) - 1)
    A.ok(half_round(2.0 ** -25) == 0 and half_round(2.0 ** -25 * (1 + 2 ** -20)) > 0,
         "binary16: 2^-25 is the flush edge")
    for r, n, z in zip(rows, n_w, dwz):
        if r[0] <= 2.0 ** -29:
            A.ok(z == n, "lost: dw nonzero for a weight at r = %g <= 2^-29" % r[0])
        elif r[0] > 2.0 ** -25:
            A.ok(z == 0, "lost: dw = 0 for a weight at r = %g > 2^-25" % r[0])
        else:
            th = statistics.fmean(min(1.0, max(0.0, 2.0 ** -25 / (r[0] * 2 ** e) - 1)) for e in range(4))
            se = math.sqrt(max(th * (1 - th), 1.0 / n) / n)
            A.ok(abs(z / n - th) <= 5 * se + 2 ** -10,
                 "lost: dw = 0 for %.4f of the weights at r = %g, theory %.4f" % (z / n, r[0], th))
    m = A.take1("**Stochastic rounding (binary16): where an update is lost for sure.**  The update "
                "dw = r·|w| is rounded into binary16 before the add, and rounds to zero where "
                "r·|w| <= 2^-25 (half the smallest subnormal); then w + dw == w with stochastic "
                "rounding as with round to nearest.  With |w| = m·2^e, m in [1, 2) and e in 0..3, "
                "that is every weight for r <= 2^-29 and none for r > 2^-25.  Measured over the {I} "
                "weights per ratio: dw = 0 for every weight {S}, for none from r = {P}; in "
                "between{S}.  Those updates are lost whatever the rounding of the add.",
                "SR dw underflow", start=s0, end=s1)
    if m:
        A.num(m.group(1), n_sr, "sr samples")
        A.word(m.group(2), "up to r = 2^%.2f" % math.log2(rows[iz_all][0]) if iz_all >= 0
               else "at no ratio", "dw all-zero edge")
        A.num(m.group(3), math.log2(rows[iz_none][0]), "dw none-zero edge")
        A.word(m.group(4), ",".join(" %.2f%% at 2^%.2f" % (100.0 * dwz[i] / n_w[i],
                                                          math.log2(rows[i][0]))
                                    for i in range(iz_all + 1, iz_none)), "dw zero shares")
        A.ok(half_round(2.0 ** -29 * 15.99) == 0 and half_round(2.0 ** -25 * 1.0001) > 0,
             "binary16: the dw edges 2^-29 and 2^-25")
    m = A.take1("**Stochastic rounding (binary16): the updates with dw != 0.**  None of them is "
                "lost for sure: the sum s = w + dw lies between neighbours lo <= s <= hi and "
                "rounds to hi with probability (s - lo)/(hi - lo), so an update of u = |dw|/gap "
                "spacings (gap: the spacing next to w on the update's side) is kept (w' != w) with "
                "probability p = min(1, u), and a kept update moves w by a whole spacing.  "
                "Expected kept fraction: the mean of p over the {I} weights per ratio (p = 0 where "
                "dw = 0); its sampling error is binomial, sqrt(sum p(1-p))/n for a sum of "
                "independent Bernoulli(p) draws; z = (measured - expected)/error, given where at "
                "least {I} kept and {I} lost updates are expected (elsewhere the normal "
                "approximation does not hold: -).  The applied fraction (w' - w)/dw, over the "
                "updates with dw != 0, has mean exactly 1 (stochastic rounding is unbiased), with "
                "sampling error sqrt(sum (hi-s)(s-lo)/dw^2)/n.", "SR intro", start=s0, end=s1)
    MINC = 10
    if m:
        A.num(m.group(1), n_sr, "sr samples")
        A.num(m.group(2), MINC, "min count")
        A.num(m.group(3), MINC, "min count")
    A.take1("| r = \\|dw\\|/\\|w\\| | dw = 0 | mean u (update in spacings) | expected kept | "
            "measured kept | sampling error | z | mean applied fraction ± error |", "SR header",
            start=s0, end=s1)
    zmax = xzmax = 0.0
    nz = npool = nexact = 0
    pk = pe = pv = 0.0
    exact_ok = True
    for i, r in enumerate(rows):
        n, dwz, kept, expk, se, u, xm, xse = r[4:12]
        A.ok(n == n_sr, "sr n")
        # theory: the mean of min(1, u) is at most min(1, mean u), equal below 1
        A.ok(expk <= min(1.0, u) + 1e-8, "sr expected kept above min(1, mean u) at r = %g" % r[0])
        # every u is below r 2^11 (m < 2 upward, m = 1 downward): below 1
        # there, the expectation is the mean of u itself
        if r[0] * 2 ** 11 < 0.99 and dwz == 0:
            A.ok(abs(expk - u) <= 1e-8 * max(u, 1e-300) + 1e-12,
                 "sr expected kept differs from mean u below one spacing at r = %g" % r[0])
        # and u = r m 2^10 with m uniform on [1, 2): mean 1.5 * 2^10 r
        if 2.0 ** -20 <= r[0] <= 2.0 ** -11:
            A.ok(abs(u / (1.5 * 1024 * r[0]) - 1) < 0.05,
                 "sr mean u %g is not 1.5*2^10*r at r = %g" % (u, r[0]))
        if se == 0:
            nexact += 1
            exact_ok &= abs(kept / n - expk) < 1e-9
            continue
        if expk * n < MINC or n - expk * n < MINC:
            npool += 1
            pk += kept
            pe += expk * n
            pv += (se * n) ** 2
            continue
        nz += 1
        zmax = max(zmax, abs((kept / n - expk) / se))
        if xse > 0:
            xzmax = max(xzmax, abs((xm - 1) / xse))
    for i, r in enumerate(rows):
        k = i - 30 * per_oct
        if k % (2 * per_oct) or k < -30 * per_oct or k > -8 * per_oct:
            continue
        n, dwz_i, kept, expk, se, u, xm, xse = r[4:12]
        m = A.take1("| 2^%d | {N}%% | {N} | {N} | {N} | {N} | {S} | {C} |" % (k // per_oct),
                    "SR row 2^%d" % (k // per_oct), start=s0, end=s1)
        if m:
            A.num(m.group(1), 100.0 * dwz_i / n, "sr dw zero share")
            A.num(m.group(2), u, "sr mean u", rel=1e-8)
            A.num(m.group(3), expk, "sr expected", rel=1e-8)
            A.num(m.group(4), kept / n, "sr measured")
            A.num(m.group(5), se, "sr error", rel=1e-8)
            zdef = se > 0 and expk * n >= MINC and n - expk * n >= MINC
            if zdef:
                A.num(m.group(6), (kept / n - expk) / se, "sr z", slack=1e-4)
            else:
                A.word(m.group(6), "-", "sr z undefined")
            if dwz_i == n:
                A.word(m.group(7), "–", "sr applied undefined")
            else:
                mm = re.fullmatch(r"(%s) ± (%s)" % (NUM, NUM), m.group(7))
                if A.ok(mm is not None, "sr applied cell " + m.group(7)):
                    A.num(mm.group(1), xm, "sr applied", slack=1e-8)
                    A.num(mm.group(2), xse, "sr applied error", slack=1e-8)
    m = A.take1("At the {I} ratios where z is defined, the measured kept fraction lies within "
                "{N} sampling errors of its expectation (largest |z|) and the mean applied "
                "fraction within {N} sampling errors of 1.  The {I} ratios with fewer expected "
                "counts, pooled: {N} updates kept against {N} expected (sampling error {N}, "
                "z = {N}).  At the other {I} ratios every weight has p = 0 or p = 1, and the "
                "measured count {W} the expected one.", "SR summary", start=s0, end=s1)
    if m:
        A.num(m.group(1), nz, "z count")
        A.num(m.group(2), zmax, "largest |z|", slack=1e-4)
        A.num(m.group(3), xzmax, "largest applied |z|", slack=1e-4)
        A.num(m.group(4), npool, "pooled ratios")
        A.num(m.group(5), pk, "pooled kept")
        A.num(m.group(6), pe, "pooled expected", slack=1e-3)
        A.num(m.group(7), math.sqrt(pv), "pooled error", slack=1e-3)
        A.num(m.group(8), (pk - pe) / math.sqrt(pv) if pv > 0 else 0.0, "pooled z", slack=1e-3)
        A.num(m.group(9), nexact, "exact ratios")
        A.word(m.group(10), "equals" if exact_ok else "DIFFERS FROM", "exact ratios agree")
    A.take1("*Figure lost_ratio*", "lost_ratio figure", start=s0, end=s1)
    m = A.take1("Top: fraction of weight updates lost (w + dw == w) under round to nearest "
                "against r = |dw|/|w|, with the theory 2^-p/r - 1 (black, dashed) and the band "
                "2^-(p+1) <= r <= 2^-p shaded: in binary16 every update is lost up to r = {P} "
                "and none from r = {P}, around Micikevicius et al.'s |w| = 2048|dw| (r = 2^-11, "
                "the band's upper end); bfloat16 {P} and {P}, binary32 {P} and {P}.  Bottom: "
                "binary16 with stochastic rounding, fraction of updates kept, measured (points, "
                "bars: ±2 sampling errors) against the expected mean of min(1, |dw|/gap) "
                "(black line); the largest |z| is {N}.  Shaded grey: where dw itself rounds to "
                "zero in binary16 before the add, for every weight (dark, up to r = {P}) or for "
                "some (light, up to {P}); the dotted line is the measured share of weights with "
                "dw = 0, whose updates are lost for sure.", "lost_ratio caption", start=s0, end=s1)
    if m:
        for g, name, j in ((1, "binary16", 0), (2, "binary16", 1), (3, "bfloat16", 0),
                           (4, "bfloat16", 1), (5, "binary32", 0), (6, "binary32", 1)):
            A.num(m.group(g), edges[name][j], "caption edge " + name)
        A.num(m.group(7), zmax, "caption |z|", slack=1e-4)
        A.num(m.group(8), math.log2(rows[iz_all][0]), "caption dw all-zero edge")
        A.num(m.group(9), math.log2(rows[iz_none - 1][0]), "caption dw some-zero edge")
        ea, en = edges["binary16"]
        A.ok(ea <= -11 <= en, "binary16 edges do not bracket 2^-11")

    # the long run
    rr = [[float(x) for x in r] for r in run.blocks[0]]
    steps = int(run.param("steps"))
    dw = float(run.param("dw"))
    last = rr[-1]
    A.ok(int(last[0]) == steps, "lost_run.dat last step")
    stored = re.search(r"binary16 (\S+) bfloat16 (\S+) binary32 (\S+)", run.comment("# dw as stored: "))
    h_dw, b_dw = abs(float(stored.group(1))), abs(float(stored.group(2)))
    A.ok(abs(half_round(dw) - float(stored.group(1))) <= 1e-8 * h_dw, "binary16 dw as stored")
    gap_h = 1 - HALF_BELOW_ONE                    # 2^-11, by struct
    gap_b = 2.0 ** -(PREC["bfloat16"])            # spacing below 1 at precision 8
    m = A.take1("*Figure lost_run*", "lost_run figure", start=s0, end=s1)
    m = A.take1("A weight w = 1 receiving {I} updates of -1e-4 (exact end value {N}).  Below 1 "
                "the binary16 numbers are 2^{I} apart, so round to nearest takes a downward "
                "update back to 1 unless it exceeds half that spacing, 2^{I} = {N}: stored in "
                "binary16 the weight ends at {N}.  bfloat16 (spacing below 1 2^{I}, half 2^{I} "
                "= {N}) ends at {N}.  A binary32 master weight ends at {N} (binary16 copy {N}), "
                "and binary16 with stochastic rounding at {N}.", "lost_run caption",
                start=s0, end=s1)
    if m:
        A.num(m.group(1), steps, "steps")
        A.num(m.group(2), 1 + steps * dw, "exact end")
        A.num(m.group(3), math.log2(gap_h), "binary16 spacing below 1")
        A.num(m.group(4), math.log2(gap_h / 2), "binary16 half spacing")
        A.num(m.group(5), gap_h / 2, "binary16 half spacing value")
        A.num(m.group(6), last[2], "binary16 end")
        A.num(m.group(7), math.log2(gap_b), "bfloat16 spacing below 1")
        A.num(m.group(8), math.log2(gap_b / 2), "bfloat16 half spacing")
        A.num(m.group(9), gap_b / 2, "bfloat16 half spacing value")
        A.num(m.group(10), last[4], "bfloat16 end")
        A.num(m.group(11), last[5], "master end")
        A.num(m.group(12), last[6], "master binary16 copy")
        A.num(m.group(13), last[3], "sr end")
        # the claim: below half the spacing, so w stays 1 at every step
        A.ok(h_dw < gap_h / 2 and all(r[2] == 1.0 for r in rr),
             "binary16 weight should stay at 1 (update below half the spacing)")
        A.ok(b_dw < gap_b / 2 and all(r[4] == 1.0 for r in rr),
             "bfloat16 weight should stay at 1")
        A.ok(half_round(1 - h_dw) == 1.0, "binary16: 1 - dw does not round back to 1")
    check_lost_bits(A, d, s0, s1)


# ---- 4c. stochastic rounding with N supplied random bits --------------------

SRV = ["stochastic", "stochastic-odd", "fast", "fastest"]
DIRS = ["grows", "shrinks"]
BITS_MIN_EXPECT = 10
# columns of one direction in lost_bits.dat (after variant nbits ratio n dw_zero)
BCOL = ["n", "kept", "fkept", "e", "umin", "umax", "ukmin", "nlo", "klo", "elo",
        "nmid", "kmid", "emid"]


def srv_away(v, nu, nb):
    """P3109 3.1's probability (over the 2^nb values of R) that the
    magnitude rounds away from zero, for the discarded fraction nu (a
    Fraction in [0, 1)), transcribed from docs/formats.md's table: the
    count of R in [0, 2^nb) that satisfy the variant's inequality."""
    M = 2 ** nb
    y = nu * M
    fl = y.numerator // y.denominator
    if v == "fastest":                        # floor(nu 2^N) + R >= 2^N
        cnt = fl
    elif v == "fast":                         # floor(nu 2^(N+1)) + 2R + 1 >= 2^(N+1)
        f2 = (nu * 2 * M).numerator // (nu * 2 * M).denominator
        cnt = (f2 + 1) // 2
    else:                                     # RNE / RNO(nu 2^N) + R >= 2^N
        frac = y - fl
        if frac > Fraction(1, 2):
            rn = fl + 1
        elif frac < Fraction(1, 2):
            rn = fl
        else:
            even = fl if fl % 2 == 0 else fl + 1
            rn = even if v == "stochastic" else (fl if fl % 2 == 1 else fl + 1)
        cnt = rn
    return Fraction(min(max(cnt, 0), M), M)


def srv_kept(v, u, nb, grows):
    """The probability that an update of u < 1 spacings is kept: the
    magnitude rounds away (|w| grows, nu = u) or toward zero (|w|
    shrinks, nu = 1 - u)."""
    return srv_away(v, u, nb) if grows else 1 - srv_away(v, 1 - u, nb)


def nlist(ns):
    """'1–5, 7' as the report writes a set of N, or 'none'."""
    ns = sorted(ns)
    out = []
    i = 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        if j == i:
            out.append("%d" % ns[i])
        elif j == i + 1:
            out.append("%d, %d" % (ns[i], ns[j]))
        else:
            out.append("%d–%d" % (ns[i], ns[j]))
        i = j + 1
    return ", ".join(out) if out else "none"


def lost_bits_data(d):
    """lost_bits.dat as {(variant, N): [row per ratio]}, each row a dict
    with ratio, n, dwz and per direction a dict of BCOL; plus the
    parameters."""
    D = Dat(os.path.join(d, "lost_bits.dat"))
    pr = D.header["params"]
    P = {}
    P["nb"] = int(re.search(r"nbits=1\.\.(\d+)", pr).group(1))
    m = re.search(r"ratios=2\^(-?\d+)\.\.2\^(-?\d+) step 2\^1 n=2\^\((-?\d+)-k\) at r=2\^k "
                  r"clamped to \[(\d+),(\d+)\]", pr)
    P["klo"], P["khi"], P["kfull"], P["nmin"], P["nmax"] = (int(m.group(i)) for i in range(1, 6))
    P["variants"] = re.search(r"variants=(\S+)", pr).group(1).split(",")
    cells = {}
    for bi, blk in enumerate(D.blocks):
        for r in blk:
            row = {"variant": r[0], "N": int(r[1]), "r": float(r[2]), "n": int(r[3]),
                   "dwz": int(r[4]), "block": bi}
            for di in range(2):
                vals = r[5 + 13 * di: 18 + 13 * di]
                row[DIRS[di]] = {k: (float(x) if k in ("e", "umin", "umax", "ukmin", "elo",
                                                       "emid") else int(x))
                                 for k, x in zip(BCOL, vals)}
            cells.setdefault((r[0], int(r[1])), []).append(row)
    return D, P, cells


def lost_bits_derive(P, cells):
    """Everything the report's part c says, from the data: pooled class
    counts, cut-offs, the shrinking fastest's z, the bits-needed table."""
    nb = P["nb"]
    R = {"pool": {}, "cut": {}, "tuk": {}}
    for v in SRV:
        for dn in DIRS:
            tn = [0, 0]
            tk = [0, 0]
            te = [0.0, 0.0]
            tuk = math.inf
            for N in range(1, nb + 1):
                for row in cells[(v, N)]:
                    c = row[dn]
                    tn[0] += c["nlo"]
                    tk[0] += c["klo"]
                    te[0] += c["elo"]
                    tn[1] += c["nmid"]
                    tk[1] += c["kmid"]
                    te[1] += c["emid"]
                    tuk = min(tuk, c["ukmin"] * 2.0 ** N)
            R["pool"][(v, dn)] = (tn, tk, te)
            R["tuk"][(v, dn)] = tuk
            R["cut"][(v, dn)] = 0 if tk[0] else 1 if tk[1] else 2
    # fastest, |w| shrinking: kept fraction of the updates below 2^-(N+1)
    # against 2^-N, per N with at least BITS_MIN_EXPECT expected
    zmax = 0.0
    nzn = 0
    kfs = nfs = 0
    for N in range(1, nb + 1):
        nn = sum(row["shrinks"]["nlo"] for row in cells[("fastest", N)])
        kk = sum(row["shrinks"]["klo"] for row in cells[("fastest", N)])
        nfs += nn
        kfs += kk
        p = 2.0 ** -N
        if nn * p < BITS_MIN_EXPECT:
            continue
        nzn += 1
        zmax = max(zmax, abs((kk - nn * p) / math.sqrt(nn * p * (1 - p))))
    R["shrink"] = (kfs, nfs, zmax, nzn)
    # bits needed per ratio
    ref = cells[(SRV[0], 1)]
    rows = []
    for i, row in enumerate(ref):
        g, s = row["grows"], row["shrinks"]
        if g["e"] < BITS_MIN_EXPECT or s["e"] < BITS_MIN_EXPECT or not g["umin"] < 1:
            continue
        k = round(math.log2(row["r"]))
        cols = []
        for vi, (v, dn) in enumerate([(x, "grows") for x in SRV] + [("fastest", "shrinks")]):
            a = nb
            while a >= 1 and cells[(v, a)][i][dn]["kept"] > 0:
                a -= 1
            ratio = (cells[(v, a + 1)][i][dn]["kept"] / row[dn]["e"]) if a < nb else None
            cols.append((a, ratio))
        rows.append((i, k, g, cols))
    R["rows"] = rows
    return R


def check_lost_bits(A, d, s0, s1):
    D, P, cells = lost_bits_data(d)
    nb = P["nb"]
    nr = P["khi"] - P["klo"] + 1
    A.ok(P["variants"] == SRV, "lost_bits.dat variants %r" % P["variants"])
    A.ok(len(D.blocks) == len(SRV) * nb, "lost_bits.dat: %d blocks" % len(D.blocks))
    # the data's shape and its own arithmetic: one check per kind and
    # block, naming the first cell that fails it
    for vi, v in enumerate(SRV):
        for N in range(1, nb + 1):
            rows = cells.get((v, N), [])
            A.ok(len(rows) == nr and all(r["block"] == vi * nb + N - 1 for r in rows),
                 "lost_bits.dat: block of %s N = %d" % (v, N))
            bad = {}

            def fail(kind, what):
                bad.setdefault(kind, what)
            lo, mid = 2.0 ** -(N + 1), 2.0 ** -N
            for i, row in enumerate(rows):
                k = P["klo"] + i
                ref = cells[(SRV[0], 1)][i]
                want_n = min(P["nmax"], max(P["nmin"], 2 ** max(0, P["kfull"] - k)))
                if not (row["r"] == 2.0 ** k and row["n"] == want_n):
                    fail("grid", "ratio or n at r = 2^%d" % k)
                if not (row["dwz"] == ref["dwz"] and
                        row["n"] == row["dwz"] + row["grows"]["n"] + row["shrinks"]["n"]):
                    fail("count", "update counts at r = 2^%d" % k)
                for dn in DIRS:
                    c, rc = row[dn], ref[dn]
                    at = "r = 2^%d, |w| %s" % (k, dn)
                    # the same updates in every block: count, full width, u range
                    if not all(c[x] == rc[x] for x in ("n", "fkept", "e", "umin", "umax")):
                        fail("same", "not the same updates as the first block at " + at)
                    if not (0 <= c["klo"] <= c["nlo"] and 0 <= c["kmid"] <= c["nmid"] and
                            c["nlo"] + c["nmid"] <= c["n"] and
                            c["klo"] + c["kmid"] <= c["kept"] <= c["n"]):
                        fail("counts", "class counts at " + at)
                    if not c["n"]:
                        continue
                    # the classes against the u range, and the sums of u in a
                    # class against its edges (printed with 9 decimals)
                    if not ((not c["umax"] < lo or c["nlo"] == c["n"]) and
                            (not c["umax"] < mid or c["nlo"] + c["nmid"] == c["n"]) and
                            (not c["umin"] >= lo or c["nlo"] == 0) and
                            (not c["umin"] >= mid or c["nlo"] + c["nmid"] == 0)):
                        fail("class", "u range against the classes at " + at)
                    if not ((c["elo"] < c["nlo"] * lo + 1e-9 or c["nlo"] == 0) and
                            c["nmid"] * lo <= c["emid"] + 1e-9 and
                            (c["emid"] < c["nmid"] * mid + 1e-9 or c["nmid"] == 0)):
                        fail("sums", "sum of u outside its class's edges at " + at)
                    if not (c["n"] * min(1, c["umin"]) <= c["e"] * (1 + 1e-9) + 1e-6 and
                            c["e"] <= c["n"] * min(1, c["umax"]) * (1 + 1e-9) + 1e-6):
                        fail("e", "full width's expectation outside n min(1, u) at " + at)
                    if not (math.isinf(c["ukmin"]) == (c["kept"] == 0) and
                            (c["kept"] == 0 or c["umin"] <= c["ukmin"] <= c["umax"])):
                        fail("ukmin", "smallest kept u at " + at)
                    # full width keeps each update with probability min(1, u):
                    # its count is a sum of Bernoulli draws of variance at most e
                    if abs(c["fkept"] - c["e"]) > 5 * math.sqrt(c["e"]) + 1:
                        fail("full", "full width kept %d, expected %.2f at %s"
                             % (c["fkept"], c["e"], at))
                    if k >= -14:
                        # dw normal: dw = w 2^k exactly, u = m 2^(k+10) with m in
                        # [1, 2) (growing), or up to 2^(k+11) at m = 1 (shrinking)
                        top_ok = c["umax"] < 2.0 ** (k + 11) if dn == "grows" else \
                            c["umax"] <= 2.0 ** (k + 11)
                        if not (c["umin"] >= 2.0 ** (k + 10) and top_ok):
                            fail("urange", "u outside [r 2^10, r 2^11] at " + at)
            for kind in ("grid", "count", "same", "counts", "class", "sums", "e", "ukmin",
                         "full", "urange"):
                A.ok(kind not in bad, "lost_bits: %s N = %d: %s" % (v, N, bad.get(kind)))
    R = lost_bits_derive(P, cells)

    m = A.take1("**Stochastic rounding with N supplied random bits (binary16).**  Hardware rounds "
                "with the random bits it is given, and P3109 Release 3.1 defines four ways to use N "
                "of them (stochastic, stochastic-odd, fast, fastest: docs/formats.md).  The weights "
                "and updates of the sweep above (at each ratio r = 2^k, k = {I} .. {I}, the first n "
                "weights of the same stream: n = {I} for r >= 2^{I}, doubling per halving of r up "
                "to {I}), with the sum w + dw rounded by fl_round_sr_bits_array with N = 1 .. {I} "
                "random bits R = fl_sr_bits(seed, i) & (2^N - 1) (i the update's index; the same R "
                "for every variant and N), and by full-width stochastic rounding (as above: as many "
                "random bits as the sum discards) on the same updates.  The variants round the "
                "magnitude, so an update that makes |w| grow (dw > 0; every w here is positive) and "
                "one that makes it shrink (dw < 0) are counted apart: an update of u = |dw|/gap "
                "spacings leaves the discarded fraction ν = u when |w| grows and ν = 1 - u when it "
                "shrinks.  Full width keeps it with probability min(1, u); the sum of that "
                "probability over updates is what full width *expects*.", "bits intro",
                start=s0, end=s1)
    if m:
        A.num(m.group(1), P["klo"], "bits: first ratio")
        A.num(m.group(2), P["khi"], "bits: last ratio")
        A.num(m.group(3), P["nmin"], "bits: n")
        A.num(m.group(4), P["kfull"] - round(math.log2(P["nmin"])), "bits: n doubles from")
        A.num(m.group(5), P["nmax"], "bits: largest n")
        A.num(m.group(6), nb, "bits: N")
        # every weight positive: no update is counted in both directions
        # (checked above), and w from the stream is m 2^e with m >= 1
    m = A.take1("Where the kept fraction falls to 0, over N = 1 .. {I} and every ratio (an update "
                "counts once per N): the updates below 2^-(N+1) spacings and those from 2^-(N+1) "
                "to 2^-N, how many each variant kept and how many full width expects; *smallest "
                "kept* is the smallest u·2^N of an update the variant kept:", "bits table intro",
                start=s0, end=s1)
    if m:
        A.num(m.group(1), nb, "bits: N")
    A.take1("| variant | \\|w\\| | u < 2^-(N+1): kept of updates | full width expects | "
            "2^-(N+1) <= u < 2^-N: kept of updates | full width expects | smallest kept u·2^N |",
            "bits table header", start=s0, end=s1)
    for v in SRV:
        for dn in DIRS:
            tn, tk, te = R["pool"][(v, dn)]
            mm = A.take1("| %s | %s | {I} of {I} | {N} | {I} of {I} | {N} | {C} |" % (v, dn),
                         "bits row %s %s" % (v, dn), start=s0, end=s1)
            if mm:
                for g, val in zip(range(1, 7), (tk[0], tn[0], te[0], tk[1], tn[1], te[1])):
                    A.num(mm.group(g), val, "bits row %s %s column %d" % (v, dn, g), slack=1e-6)
                tuk = R["tuk"][(v, dn)]
                A.word(mm.group(7), "–" if math.isinf(tuk) else "%.4g" % tuk,
                       "bits row %s %s smallest kept" % (v, dn))
    # the cut-offs, grouped as the report groups them
    what = {2: "every update below 2^-N spacings is lost by",
            1: "every update below 2^-(N+1) spacings is lost by",
            0: "updates of every size are kept by"}
    parts = []
    for q in (2, 1, 0):
        lst = []
        for v in SRV:
            g, s = R["cut"][(v, "grows")] == q, R["cut"][(v, "shrinks")] == q
            if g or s:
                lst.append("%s (%s)" % (v, "both" if g and s else "|w| grows" if g else "|w| shrinks"))
        parts.append("%s %s" % (what[q], ", ".join(lst) if lst else "no variant"))
    m = A.take1("Measured, with N random bits, {S}.  Fastest truncates", "bits cut-offs",
                start=s0, end=s1)
    if m:
        A.word(m.group(1), "; ".join(parts), "bits: cut-offs")
    # the rule and its support: fastest (|w| grows) keeps nothing below
    # 2^-N, the others nothing below 2^-(N+1) in either direction
    uk_others = min(R["tuk"][(v, dn)] for v in SRV[:3] for dn in DIRS)
    fg = R["pool"][("fastest", "grows")]
    m = A.take1("Fastest truncates ν·2^N, so when |w| grows (ν = u) an update with u·2^N < 1 "
                "truncates to 0 and is lost whatever R: kept only if u >= 2^-N (its smallest kept "
                "u·2^N: {N}); the other three round ν·2^N to the nearest integer (ties to even, to "
                "odd and up), which reaches 1 from u·2^N = 1/2 on (their smallest kept u·2^N: "
                "{N}), so they lose only the "
                "updates below 2^-(N+1).  Full width expects {N} of the updates below 2^-N that "
                "fastest lost when |w| grows.", "bits rule", start=s0, end=s1)
    if m:
        A.num(m.group(1), R["tuk"][("fastest", "grows")], "bits: fastest smallest kept", rel=1e-3)
        A.num(m.group(2), uk_others, "bits: others smallest kept", rel=1e-3)
        A.num(m.group(3), fg[2][0] + fg[2][1], "bits: full width expects below 2^-N", slack=1e-6)
        A.ok(R["cut"][("fastest", "grows")] == 2 and R["tuk"][("fastest", "grows")] >= 1,
             "bits: fastest (|w| grows) kept an update below 2^-N")
        A.ok(all(R["cut"][(v, dn)] == 1 for v in SRV[:3] for dn in DIRS) and uk_others >= 0.5,
             "bits: stochastic, stochastic-odd or fast kept an update below 2^-(N+1), or none "
             "between 2^-(N+1) and 2^-N")
        A.ok(fg[2][0] + fg[2][1] >= BITS_MIN_EXPECT,
             "bits: too few updates below 2^-N to show fastest loses them")
    kfs, nfs, zmax, nzn = R["shrink"]
    te_s = R["pool"][("fastest", "shrinks")][2][0]
    m = A.take1("When |w| shrinks, fastest keeps updates of every size: ν = 1 - u truncated to N "
                "bits is at most 1 - 2^-N for every u > 0, so an update below 2^-N is kept with "
                "probability 2^-N, whatever its size.  Measured: it kept {I} of its {I} updates "
                "below 2^-(N+1), {N} times what full width expects, and at each of the {I} N where "
                "at least {I} of them are kept in expectation, the kept fraction lies within {N} "
                "binomial sampling errors of 2^-N (largest |z|).  Those extra steps toward zero are "
                "the bias of docs/formats.md's table; the long run below shows what it does to a "
                "weight.", "bits shrinking fastest", start=s0, end=s1)
    if m:
        A.num(m.group(1), kfs, "bits: fastest shrinking kept")
        A.num(m.group(2), nfs, "bits: fastest shrinking updates")
        A.num(m.group(3), kfs / te_s if te_s > 0 else 0.0, "bits: times full width", rel=1e-6)
        A.num(m.group(4), nzn, "bits: N with a z")
        A.num(m.group(5), BITS_MIN_EXPECT, "bits: min expected")
        A.num(m.group(6), zmax, "bits: largest |z| of fastest shrinking", slack=1e-4)
        # the claim: kept with probability 2^-N (the formula's value for
        # 0 < u <= 2^-N), shown where the count can show it
        A.ok(R["cut"][("fastest", "shrinks")] == 0 and nzn >= 3 and zmax <= 4.5,
             "bits: fastest (|w| shrinks) does not keep small updates with probability 2^-N")
        A.ok(all(srv_kept("fastest", Fraction(1, 2 ** (N + 1 + j)), N, False) == Fraction(1, 2 ** N)
                 for N in range(1, nb + 1) for j in range(4)),
             "P3109 formula: fastest, shrinking, u < 2^-N")
    m = A.take1("**How many bits an update needs.**  For each ratio with some u below 1 where full "
                "width expects at least {I} kept updates in each direction: the range of u (|w| "
                "grows), full width's expected kept fraction, and for each variant the largest N at "
                "which it kept none of the updates that grow |w| (it kept some at every larger N; "
                "-: it kept some at every N), with the kept fraction at the next N divided by full "
                "width's expectation in brackets:", "bits needed intro", start=s0, end=s1)
    if m:
        A.num(m.group(1), BITS_MIN_EXPECT, "bits needed: min expected")
    A.take1("| r | u (\\|w\\| grows) | full width expects | stochastic | stochastic-odd | fast | "
            "fastest | fastest, \\|w\\| shrinks |", "bits needed header", start=s0, end=s1)
    agree = [0] * 4
    miss = []
    early = True
    for i, k, g, cols in R["rows"]:
        mm = A.take1("| 2^%d | {N} .. {N} | {N} |{C}|{C}|{C}|{C}|{C}|" % k,
                     "bits needed row 2^%d" % k, start=s0, end=s1)
        if mm:
            A.num(mm.group(1), g["umin"], "bits needed u_min", rel=1e-6)
            A.num(mm.group(2), g["umax"], "bits needed u_max", rel=1e-6)
            A.num(mm.group(3), g["e"] / g["n"], "bits needed expected fraction", rel=1e-6)
            for j, (a, ratio) in enumerate(cols):
                cell = mm.group(4 + j).strip()
                # the bracket is printed with 2 decimals: compare as numbers
                mc = re.fullmatch(r"(\S+)(?: \((%s)\))?" % NUM, cell)
                if A.ok(mc is not None, "bits needed cell '%s'" % cell):
                    A.word(mc.group(1), "%d" % a if a >= 1 else "-", "bits needed N at 2^%d" % k)
                    if ratio is None:
                        A.ok(mc.group(2) is None, "bits needed: bracket without a next N")
                    else:
                        A.num(mc.group(2) or "nan", ratio, "bits needed ratio at 2^%d" % k)
        for j, v in enumerate(SRV):
            a = cols[j][0]
            want = max(1, -k - 10 if v == "fastest" else -k - 11)
            if a + 1 == want:
                agree[j] += 1
            else:
                miss.append("%s at 2^%d (u_max %.4g)" % (v, k, g["umax"]))
                early &= a + 1 == want - 1 and g["umax"] >= 2.0 ** (k + 11)
    m = A.take1(pat("So an update of ratio r (u from r·2^10 to r·2^11 spacings) needs N = -log2(r) - "
                    "10 random bits with fastest and one fewer, -log2(r) - 11 (at least 1), with "
                    "the others: measured at {I}, {I}, {I} and {I} of the {I} ratios (stochastic, "
                    "stochastic-odd, fast, fastest)") + r"([^\n]*?)\.$", "bits needed summary",
                regex=True, start=s0, end=s1)
    if m:
        for j in range(4):
            A.num(m.group(1 + j), agree[j], "bits needed agreement " + SRV[j])
        A.num(m.group(5), len(R["rows"]), "bits needed rows")
        tail = ""
        if miss:
            tail = "; not at " + ", ".join(miss)
            if early:
                tail += (", where dw, rounded in binary16's subnormal range, reaches u = r·2^11, "
                         "the next octave's size, and the variant keeps some updates one bit earlier")
        A.word(m.group(6), tail, "bits needed exceptions")
        # the law needs its support: every ratio that departs from it is one
        # whose updates reach the next octave (the clause above), and the
        # clause holds for each
        A.ok(not miss or early, "bits needed: a ratio departs from -log2(r) - 10 / - 11 "
             "unexplained")
        A.ok(sum(agree) >= 2 * len(R["rows"]), "bits needed: the rule holds at fewer than "
             "half the cells")
        # and the subnormal clause: where it is invoked, dw is subnormal for
        # some weight (r|w| < 2^-14 for |w| >= 1 needs r < 2^-14)
        A.ok(all(k < -14 for i, k, g, cols in R["rows"]
                 if any(cols[j][0] + 1 != max(1, (-k - 10 if j == 3 else -k - 11))
                        for j in range(4))), "bits needed: exception where dw is normal")
    dsk = max([P["klo"] + i for i, row in enumerate(cells[(SRV[0], 1)]) if row["dwz"] > 0]
              or [P["klo"] - 1])
    A.take1("*Figure lost_bits*", "lost_bits figure", start=s0, end=s1)
    m = A.take1("Binary16 weights, w + dw rounded with N supplied random bits: the fraction of "
                "updates kept against r = |dw|/|w|, one panel per P3109 variant, for N = 2, 4, 6, "
                "8, 10, 12 (colours; solid: the updates that make |w| grow), against full-width "
                "stochastic rounding's expected fraction (black).  A curve in the bottom band (one "
                "row per N) kept none: where it rises is where its variant starts keeping updates "
                "(the table above gives that N for every ratio).  Dashed, in the fastest panel: "
                "the updates that make |w| shrink, kept with probability 2^-N however small.  "
                "Grey: dw itself rounds to zero in binary16 for some weights (r <= 2^{I}).",
                "lost_bits caption", start=s0, end=s1)
    if m:
        A.num(m.group(1), dsk, "lost_bits caption: dw = 0 edge")
        # |w| >= 1: dw = r|w| rounds to zero for some weight only if r does
        A.ok(half_round(2.0 ** dsk) == 0 and half_round(2.0 ** (dsk + 1) * (1 + 2 ** -10)) > 0,
             "lost_bits caption: dw = 0 edge against binary16")
    check_lost_bits_run(A, d, s0, s1)


def check_lost_bits_run(A, d, s0, s1):
    D = Dat(os.path.join(d, "lost_bits_run.dat"))
    steps = int(D.param("steps"))
    reps = int(D.param("runs"))
    nb = int(re.search(r"nbits=1\.\.(\d+)", D.header["params"]).group(1))
    rows = {}
    for r in D.blocks[0]:
        ends = [float(x) for x in r[9:]]
        rows[(r[0], r[1], int(r[2]))] = {
            "w0": float(r[3]), "dw": float(r[4]), "exact": float(r[5]), "dm": float(r[6]),
            "dse": float(r[7]), "kept": float(r[8]), "ends": ends}
    A.ok(len(rows) == 2 * (len(SRV) * nb + 1), "lost_bits_run.dat rows")
    gap = 1 - HALF_BELOW_ONE                             # 2^-11, by struct
    run_w0 = {"shrinks": 1.0, "grows": 0.5}
    run_dw = {"shrinks": half_round(-1e-4), "grows": half_round(1e-4)}
    u = Fraction(abs(run_dw["shrinks"])) / Fraction(gap)
    stat = {}
    for key, x in rows.items():
        run = key[0]
        what = "lost_bits_run %s %s N = %d" % key
        A.ok(len(x["ends"]) == reps, what + ": runs")
        A.ok(x["w0"] == run_w0[run] and x["dw"] == run_dw[run] and
             x["exact"] == run_w0[run] + steps * run_dw[run], what + ": setup")
        diffs = [(e - x["exact"]) / abs(x["dw"]) for e in x["ends"]]
        mm, sd = mean_sd(diffs)
        se = sd / math.sqrt(reps)
        A.ok(abs(mm - x["dm"]) <= 1e-6 + 1e-9 * abs(mm) and abs(se - x["dse"]) <= 1e-6 + 1e-9 * se,
             what + ": mean/se of the end values")
        # each end value is a binary16 number, and each kept step moves w by
        # one spacing: inside [0.5, 1] the steps kept are |end - w0|/2^-11
        A.ok(all(half_round(e) == e for e in x["ends"]), what + ": an end value not in binary16")
        inside = all(0.5 <= e <= 1 for e in x["ends"])
        # u stays |dw|/2^-11 while w is in [0.5, 1) growing or in (0.5, 1]
        # shrinking (below 0.5 and above 1 the spacing halves or doubles)
        same_u = all((0.5 <= e < 1) if run == "grows" else (0.5 < e <= 1) for e in x["ends"])
        if inside:
            A.ok(abs(statistics.fmean(abs(e - x["w0"]) / gap for e in x["ends"]) - x["kept"]) < 1e-6,
                 what + ": kept steps against the end values")
        stat[key] = (mm, se)
        # the variant's kept probability by P3109's formula (u = |dw|/2^-11,
        # constant while w stays in the binade): the runs that never left
        # it keep a binomial count
        if same_u and key[1] != "full":
            p = srv_kept(key[1], u, key[2], run == "grows")
            ex = float(p) * reps * steps
            var = ex * (1 - float(p))
            got = x["kept"] * reps
            A.ok(abs(got - ex) <= 4.5 * math.sqrt(var) + 1e-9,
                 what + ": %d steps kept, P3109's formula gives %.1f" % (got, ex))
    sp = gap / abs(run_dw["shrinks"])
    m = A.take1("**A weight receiving many small updates, with N random bits.**  Experiment b's "
                "weight, w = 1 receiving {I} updates dw = {N} (-1e-4 in binary16; |w| shrinks, exact "
                "end {N}), and its mirror, w = 0.5 receiving {I} updates dw = {N} (|w| grows, exact "
                "end {N}).  Binary16's numbers in [0.5, 1) are 2^{I} apart, so each update is u = "
                "{N} spacings.  Each run is repeated {I} times with independent random bits (R = "
                "fl_sr_bits(seed, i) & (2^N - 1), the same bits for every variant and N), w + dw "
                "rounded by fl_add in mode FL_RSB.  The end value's difference from the exact end, "
                "in updates ((w - exact)/|dw|, mean ± standard error over the runs): full width {N} "
                "± {N} when |w| shrinks and {N} ± {N} when it grows; each variant and N:",
                "bits run intro", start=s0, end=s1)
    if m:
        A.num(m.group(1), steps, "bits run steps")
        A.num(m.group(2), run_dw["shrinks"], "bits run dw", rel=1e-8)
        A.num(m.group(3), rows[("shrinks", "full", 0)]["exact"], "bits run exact end", rel=1e-6)
        A.num(m.group(4), steps, "bits run steps")
        A.num(m.group(5), run_dw["grows"], "bits run dw", rel=1e-8)
        A.num(m.group(6), rows[("grows", "full", 0)]["exact"], "bits run exact end", rel=1e-6)
        A.num(m.group(7), math.log2(gap), "bits run spacing")
        A.num(m.group(8), float(u), "bits run u")
        A.num(m.group(9), reps, "bits run repetitions")
        for g, key in ((10, ("shrinks", "full", 0)), (12, ("grows", "full", 0))):
            A.num(m.group(g), stat[key][0], "bits run full width mean")
            A.num(m.group(g + 1), stat[key][1], "bits run full width se")
    A.take1("| N | shrinks: stochastic | stochastic-odd | fast | fastest | grows: stochastic | "
            "stochastic-odd | fast | fastest |", "bits run header", start=s0, end=s1)
    for N in range(1, nb + 1):
        mm = A.take1("| %d |" % N + " {N} ± {N} |" * 8, "bits run row %d" % N, start=s0, end=s1)
        if mm:
            g = 1
            for run in ("shrinks", "grows"):
                for v in SRV:
                    A.num(mm.group(g), stat[(run, v, N)][0], "bits run %s %s %d mean" % (run, v, N))
                    A.num(mm.group(g + 1), stat[(run, v, N)][1], "bits run %s %s %d se" % (run, v, N))
                    g += 2
    cls = {q: {v: [] for v in SRV} for q in range(4)}
    for v in SRV:
        for N in range(1, nb + 1):
            (ms, ss), (mg, sg) = stat[("shrinks", v, N)], stat[("grows", v, N)]
            sl, sh = ms < -2 * ss and ms < -sp, ms > 2 * ss and ms > sp
            gl, gh = mg < -2 * sg and mg < -sp, mg > 2 * sg and mg > sp
            q = 0 if sl and gl else 1 if sh and gh else 2 if sl and gh else 3 if sh and gl else None
            if q is not None:
                cls[q][v].append(N)
    heads = ["Closer to zero than the exact end in both runs (the shrinking run below its exact "
             "end, the growing one below its; each by more than 2 standard errors and more than "
             "one spacing, {N} updates):", "Farther from zero in both:",
             "Too far in both directions:", "Too little in both:"]
    for q in range(4):
        body = ";".join(" %s at %s" % (v, ("N = " + nlist(cls[q][v])) if cls[q][v] else "no N")
                        for v in SRV)
        m = A.take1(heads[q] + "{S}.  ", "bits run class %d" % q, start=s0, end=s1)
        if m:
            if q == 0:
                A.num(m.group(1), sp, "bits run one spacing")
            A.word(m.group(2 if q == 0 else 1), body, "bits run class %d lists" % q)
    nlist_f = cls[0]["fastest"]
    nsup = 0
    for N in nlist_f:
        ks = rows[("shrinks", "fastest", N)]["kept"] / steps
        kg = rows[("grows", "fastest", N)]["kept"] / steps
        nsup += ks > float(u) and kg < float(u)
    m = A.take1("Why fastest ends closer to zero: it keeps an update that shrinks |w| with "
                "probability ceil(u·2^N)/2^N and one that grows it with floor(u·2^N)/2^N, so it "
                "takes more steps toward zero and fewer away from it than u = {N} per update; "
                "measured, its kept fraction per step is above u in the shrinking run and below u "
                "in the growing one at {I} of the {I} N listed for it.", "bits run cause",
                start=s0, end=s1)
    if m:
        A.num(m.group(1), float(u), "bits run u")
        A.num(m.group(2), nsup, "bits run cause count")
        A.num(m.group(3), len(nlist_f), "bits run fastest N")
        A.ok(nsup == len(nlist_f) and nlist_f, "bits run: fastest's closer-to-zero ends without "
             "more kept steps toward zero and fewer away")
        # the formula named, exactly: ceil / floor of u 2^N over 2^N
        for N in range(1, nb + 1):
            c = math.ceil(u * 2 ** N)
            f = math.floor(u * 2 ** N)
            A.ok(srv_kept("fastest", u, N, False) == Fraction(c, 2 ** N) and
                 srv_kept("fastest", u, N, True) == Fraction(f, 2 ** N),
                 "P3109 formula: fastest at u = %s, N = %d" % (u, N))
    A.take1("*Figure lost_bits_run*", "lost_bits_run figure", start=s0, end=s1)
    m = A.take1("The long run with N random bits: the end value minus the exact end, in updates of "
                "1e-4 (mean over {I} runs, bars ±2 standard errors; symmetric logarithmic axis), "
                "against N, per variant; grey band: full width's mean ±2 standard errors.  Left: "
                "w = 1 receiving {I} updates of -1e-4 (|w| shrinks); right: w = 0.5 receiving {I} "
                "of +1e-4 (|w| grows).  Below 0 in both panels is closer to zero: fastest at N = "
                "{S}.", "lost_bits_run caption", start=s0, end=s1)
    if m:
        A.num(m.group(1), reps, "bits run caption runs")
        A.num(m.group(2), steps, "bits run caption steps")
        A.num(m.group(3), steps, "bits run caption steps")
        A.word(m.group(4), nlist(nlist_f), "bits run caption fastest N")


# ---- 5. accumulation ---------------------------------------------------------

def check_accum(A, d, span):
    s0, s1 = span
    ac = Dat(os.path.join(d, "accum.dat"))
    rows = [[float(x) for x in r] for r in ac.blocks[0]]
    ev = {r[0]: (int(r[1]), float(r[2]), float(r[3])) for r in ac.blocks[1]}
    nmax = int(ac.param("nmax"))
    last = rows[-1]
    A.ok(int(last[0]) == nmax, "accum.dat last checkpoint")
    # relative errors against the exact sums, recomputed
    for r in rows:
        A.ok(abs(r[1] - abs(r[11] - r[9]) / r[9]) <= 1e-6 * r[1] + 1e-12, "accum sum error N=%d" % r[0])
        A.ok(abs(r[5] - abs(r[12] - r[10]) / r[10]) <= 1e-6 * r[5] + 1e-12, "accum dot error N=%d" % r[0])
        for c, v in ((2, 15), (6, 16)):
            want = abs(r[v] - r[9 if c == 2 else 10]) / r[9 if c == 2 else 10]
            A.ok((math.isinf(r[c]) and math.isinf(r[v])) or abs(r[c] - want) <= 1e-6 * want + 1e-12,
                 "accum sr error N=%d" % r[0])
    # round-to-nearest sums never decrease (terms >= 0)
    A.ok(all(rows[i + 1][11] >= rows[i][11] and rows[i + 1][12] >= rows[i][12]
             for i in range(len(rows) - 1)), "accum: a round-to-nearest sum decreased")
    oracle = re.search(r"exact=(.*)$", ac.header["params"]).group(1)
    A.take1("*Figure accum*", "accum figure", start=s0, end=s1)
    m = A.take1("Relative error against the exact sum ({S}) of running sums (left) and dot "
                "products (right) of N values uniform in [0,1) held in binary16.  A binary16 "
                "accumulator with round to nearest loses every term smaller than half its "
                "spacing: the running sum {S}; exact sum of all {I} terms {N}, relative error "
                "{N}.  The dot product {S}; relative error {N}.  {S}  A binary32 accumulator "
                "ends with relative errors {N} (sum) and {N} (dot), Kahan in binary32 {N} and "
                "{N}, and the H100 tensor-core model (blocks of 16 exact products aligned with "
                "2 extra bits and truncated, binary32 accumulator rounded toward zero; Fasi et "
                "al. 2021, Khattak & Mikaitis 2025) {N} and {N}.  Errors that are exactly zero "
                "and accumulators that overflowed are drawn as markers on rows of their own, at "
                "the bottom (0) and at the top (inf).  Vertical lines: the round-to-nearest "
                "accumulator's last change (where it stalls), the term where the exact sum passes "
                "65504, and the term where the stochastically rounded accumulator becomes "
                "infinite.", "accum caption", start=s0, end=s1)
    if not m:
        return
    A.word(m.group(1), oracle, "accum oracle")
    for g, key, col in ((2, "sum", 11), (6, "dot", 12)):
        L, before, after = ev["binary16_%s_last_change" % key]
        final = last[col]
        A.ok(before != after and after == final,
             "accum %s: the last change does not end at the final value" % key)
        stuck = half_round(final + 1) == final
        txt = m.group(g)
        if stuck:
            A.word(txt, "last changed at term %d, to %.6g, and can move no more: no term exceeds "
                   "1, and %.6g + 1 rounds back to %.6g (half its spacing is %g)"
                   % (L, final, final, final, half_spacing(final) / 2), "accum %s stagnation" % key)
        else:
            A.word(txt, "is at %.6g after %d terms, still moving (last change at term %d; half "
                   "its spacing is %g)" % (final, nmax, L, half_spacing(final) / 2),
                   "accum %s still moving" % key)
    A.num(m.group(3), nmax, "accum N")
    A.num(m.group(4), last[9], "accum exact sum")
    A.num(m.group(5), last[1], "accum sum error")
    A.num(m.group(7), last[5], "accum dot error")
    sr = m.group(8)
    if "binary16_sr_sum_overflow" in ev or "binary16_sr_dot_overflow" in ev:
        es = ev["exact_sum_exceeds_max"]
        A.ok(es[1] <= HALF_MAX < es[2], "exact sum crossing event")
        parts = ["The exact sum exceeds binary16's largest finite value %g from term %d on"
                 % (HALF_MAX, es[0])]
        if "exact_dot_exceeds_max" in ev:
            ed = ev["exact_dot_exceeds_max"]
            A.ok(ed[1] <= HALF_MAX < ed[2], "exact dot crossing event")
            parts.append(" (the dot product from term %d)" % ed[0])
        so = ev["binary16_sr_sum_overflow"]
        A.ok(math.isfinite(so[1]) and math.isinf(so[2]), "sr sum overflow event")
        parts.append(", so a binary16 accumulator that keeps up with it must overflow: with "
                     "stochastic rounding, which does keep up, the running sum becomes infinite "
                     "at term %d" % so[0])
        if "binary16_sr_dot_overflow" in ev:
            do = ev["binary16_sr_dot_overflow"]
            A.ok(math.isfinite(do[1]) and math.isinf(do[2]), "sr dot overflow event")
            parts.append(" and the dot product at term %d" % do[0])
        else:
            parts.append(", while the dot product stays finite")
        fin = [[r for r in rows if math.isfinite(r[c])][-1] for c in (2, 6)]
        parts.append("; at the last checkpoints before (N = %d and %d) its relative errors "
                     "were %.2e and %.2e.  Round to nearest never gets there."
                     % (fin[0][0], fin[1][0], fin[0][2], fin[1][6]))
        want = "".join(parts)
        # "keeps up": the stochastically rounded sums stay within 10% while finite
        A.ok(all(r[c] < 0.1 for r in rows for c in (2, 6) if math.isfinite(r[c])),
             "accum: the stochastic-rounding sums do not keep up with the exact sum")
        A.ok(last[11] < HALF_MAX and last[12] < HALF_MAX, "round to nearest reached the max")
        A.word(sr, want, "accum stochastic rounding sentence")
    else:
        A.ok(last[9] < HALF_MAX and math.isfinite(last[2]), "accum: no overflow expected")
        A.word(sr, "Binary16 with stochastic rounding keeps up with the sum, which stays below "
               "binary16's largest finite value %g here: relative errors %.2e (sum) and %.2e "
               "(dot)." % (HALF_MAX, last[2], last[6]), "accum stochastic rounding sentence")
    A.num(m.group(9), last[3], "binary32 sum error")
    A.num(m.group(10), last[7], "binary32 dot error")
    A.num(m.group(11), last[4], "kahan sum error")
    A.num(m.group(12), last[8], "kahan dot error")
    A.num(m.group(13), last[13], "tc sum error")
    A.num(m.group(14), last[14], "tc dot error")


# ---- 6. training -------------------------------------------------------------

class Setting:
    def __init__(self, d, name, curves=None, seeds=None):
        self.name = name
        self.curves = Dat(os.path.join(d, curves or "training_%s.dat" % name))
        self.seeds = Dat(os.path.join(d, seeds or "training_%s_seeds.dat" % name))
        self.pols = self.curves.header["formats"].split()[1:]
        self.runs = {}
        for r in self.seeds.blocks[0]:
            self.runs.setdefault(r[1], []).append(r)
        self.n = len(self.runs[self.pols[0]])

    def acc(self, p):
        return [100.0 * int(r[3]) / int(r[4]) for r in self.runs[p]]

    def col(self, p, c):
        return [float(r[c]) for r in self.runs[p]]

    def lost(self, p):
        return [100.0 * int(r[11]) / int(r[10]) if int(r[10]) else 0.0 for r in self.runs[p]]

    def frac(self, p, num, den):
        return statistics.fmean(100.0 * int(r[num]) / int(r[den]) if int(r[den]) else 0.0
                                for r in self.runs[p])

    def hashes(self, p):
        return [r[18] for r in self.runs[p]]

    def diverged(self, p):
        return sum(1 for r in self.runs[p] if int(r[7]))

    def words(self):
        """block 3: what each policy does, by policy"""
        return {r[0]: r[1:] for r in self.seeds.blocks[3]}

    def groups(self):
        """the first policy bit-identical (equal hashes in every seed) to each"""
        rep = {}
        for i, p in enumerate(self.pols):
            rep[p] = p
            for q in self.pols[:i]:
                if rep[q] == q and self.hashes(q) == self.hashes(p):
                    rep[p] = q
                    break
        return rep


def groups_text(S):
    """the old rule's verdict groups (paired 95% interval, no multiplicity
    correction), as experiment 7 still words them"""
    order = [("identical", "identical to binary32 in every seed"),
             ("not shown", "difference from binary32 not shown"),
             ("lower", "lower than binary32"), ("higher", "higher than binary32")]
    parts = []
    for w, label in order:
        ps = [p for p in S.pols[1:] if paired(S.acc(p), S.acc("fp32"))[0] == w]
        if ps:
            parts.append(label + ": " + ", ".join(ps))
    return "; ".join(parts)


def check_cmp_str(A, s, a, b, what):
    """'word (+d ± h)' or 'identical' against the recomputed comparison
    (the old rule, as experiment 7 still uses it)."""
    w, m, h = paired(a, b)
    if w == "identical":
        return A.word(s, "identical", what)
    mm = re.fullmatch(r"(\w+(?: shown)?) \(([-+]\d+\.\d+) ± (\d+\.\d+)\)", s)
    if not A.ok(mm is not None, "%s: '%s' not recognised" % (what, s)):
        return False
    A.word(mm.group(1), w, what)
    A.num(mm.group(2), m, what + " mean difference", slack=1e-9)
    A.num(mm.group(3), h, what + " half-width", slack=3e-3 * max(1, h))
    return True


def scale_text(v):
    """2^k for a power of two, else %g."""
    m, e = math.frexp(v)
    return "2^%d" % (e - 1) if v > 0 and m == 0.5 else "%g" % v


# Student's t by its own route: the exact finite series for integer degrees
# of freedom (Abramowitz and Stegun 26.7.3 and 26.7.4), not the lab's
# continued fraction
def t_cdf(t, df):
    if t != t:
        return float("nan")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    th = math.atan(t / math.sqrt(df))
    c2 = math.cos(th) ** 2
    s = math.sin(th)
    if df % 2 == 1:
        term, acc = math.cos(th), 0.0
        if df > 1:
            acc = term
            for k in range(3, df - 1, 2):
                term *= c2 * (k - 1) / k
                acc += term
        a = 2 / math.pi * (th + s * acc)
    else:
        term, acc = 1.0, 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            acc += term
        a = s * acc
    return 0.5 + 0.5 * a


def t_q(p, df):
    lo, hi = -1.0, 1.0
    while t_cdf(lo, df) > p:
        lo *= 2
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * (1 + abs(lo)):
            break
    return (lo + hi) / 2


MARGIN = 1.0


class Cmp:
    """One paired comparison as the lab's rule makes it (lab_train.h)."""

    def __init__(self, a_key, b_key, metric, a, b, ha, hb):
        self.a_key, self.b_key, self.metric = a_key, b_key, metric
        self.a, self.b, self.ha, self.hb = a, b, ha, hb
        d = [x - y for x, y in zip(a, b)]
        n = len(d)
        self.n = n
        self.mean = statistics.fmean(d)
        self.sd = statistics.stdev(d) if n > 1 else 0.0
        se = self.sd / math.sqrt(n)
        self.half = t_q(0.975, n - 1) * se
        self.equal = all(x == 0 for x in d)
        if self.equal:
            self.p, self.p_tost = 1.0, 0.0
        elif self.sd == 0:
            self.p = 0.0
            self.p_tost = 0.0 if abs(self.mean) < MARGIN else 1.0
        else:
            self.p = min(1.0, 2 * (1 - t_cdf(abs(self.mean) / se, n - 1)))
            self.p_tost = max(1 - t_cdf((self.mean + MARGIN) / se, n - 1),
                              t_cdf((self.mean - MARGIN) / se, n - 1))
        self.ident = ha == hb
        self.dup_of = -1
        self.p_holm = self.tost_holm = float("nan")


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: (ps[i], i))
    adj, run, m = [0.0] * len(ps), 0.0, len(ps)
    for j, i in enumerate(order):
        run = max(run, min(1.0, (m - j) * ps[i]))
        adj[i] = run
    return adj


def finish_family(cs):
    """duplicates, Holm over the two families, verdicts (lab_family_finish)"""
    for i, c in enumerate(cs):
        if c.ident:
            continue
        for j in range(i):
            o = cs[j]
            if (o.metric == c.metric and o.dup_of < 0 and o.ha == c.ha and o.hb == c.hb):
                c.dup_of = j
                break
    for c in cs:
        c.diff_test = not c.ident and c.dup_of < 0
        c.equiv_test = c.diff_test and c.metric == "acc"
    d = [c for c in cs if c.diff_test]
    e = [c for c in cs if c.equiv_test]
    for c, q in zip(d, holm([c.p for c in d])):
        c.p_holm = q
    for c, q in zip(e, holm([c.p_tost for c in e])):
        c.tost_holm = q
    for c in cs:
        if c.ident:
            c.verdict = "bit-identical"
        elif c.dup_of >= 0:
            o = cs[c.dup_of]
            c.p_holm, c.tost_holm, c.verdict = o.p_holm, o.tost_holm, o.verdict
        elif c.p_holm < 0.05:
            c.verdict = "higher" if c.mean > 0 else "lower"
        elif c.equiv_test and c.tost_holm < 0.05:
            c.verdict = "equivalent"
        else:
            c.verdict = "not shown"
    return len(d), len(e)


def fmt_p(p):
    return "< 1e-6" if p < 1e-6 else "%.4g" % p


def check_cmp_text(A, s, c, what):
    """'lower (-2.23 ± 1.89, Holm p 0.012)' and the like against c"""
    if c.verdict == "bit-identical":
        return A.word(s, "bit-identical", what)
    m = re.fullmatch(r"(higher|lower|equivalent|not shown) \(([-+]\d+\.\d+) ± (\d+\.\d+)"
                     r"(?:, Holm p (< 1e-6|%s))?(?:, TOST Holm p (< 1e-6|%s))?\)" % (NUM, NUM), s)
    if not A.ok(m is not None, "%s: '%s' not recognised" % (what, s)):
        return False
    A.word(m.group(1), c.verdict, what + " verdict")
    A.num(m.group(2), c.mean, what + " mean difference", slack=1e-9)
    A.num(m.group(3), c.half, what + " half-width", slack=1e-9)
    ph, pt = m.group(4), m.group(5)
    want_ph = c.verdict in ("higher", "lower") or c.verdict == "not shown"
    want_pt = c.verdict == "equivalent" or (c.verdict == "not shown" and c.metric == "acc")
    A.ok((ph is not None) == want_ph and (pt is not None) == want_pt,
         what + ": the p-values shown do not fit the verdict")
    for got, want, nm in ((ph, c.p_holm, "Holm p"), (pt, c.tost_holm, "TOST Holm p")):
        if got is None:
            continue
        if got == "< 1e-6":
            A.ok(want < 1e-6 * 1.001, "%s %s: %s, recomputed %g" % (what, nm, got, want))
        else:
            A.ok(abs(float(got) - want) <= 1e-3 * max(want, 1e-12) + 1e-9,
                 "%s %s: %s, recomputed %.6g" % (what, nm, got, want))
    return True


def take_cmp(A, template, what, **kw):
    """take1 with {Q} a p-value cell and {V} a verdict text"""
    rx = pat(template, A.flow).replace(re.escape("{V}"), r"(bit-identical|[a-z ]+ \([^)]*\))")
    return A.take1(rx, what, regex=True, **kw)


def family_rows(A, F, cs, what):
    """the tests file's rows against the recomputed family"""
    rows = F.blocks[0]
    A.ok(len(rows) == len(cs), "%s: %d comparisons in the data, %d expected"
         % (what, len(rows), len(cs)))
    for r, c in zip(rows, cs):
        w = "%s %s vs %s" % (what, c.a_key, c.b_key)
        A.ok(r[1] == c.a_key and r[2] == c.b_key and r[3] == c.metric,
             "%s: the data's comparison is %s vs %s (%s)" % (w, r[1], r[2], r[3]))
        A.ok(int(r[4]) == c.n, w + ": seeds")
        for col, v in ((5, c.mean), (6, c.sd), (7, c.half)):
            A.ok(abs(float(r[col]) - v) <= 1e-6 * max(1, abs(v)), "%s column %d" % (w, col))
        for col, v in ((8, c.p if c.diff_test else float("nan")), (9, c.p_holm),
                       (10, c.p_tost if c.equiv_test else float("nan")), (11, c.tost_holm)):
            x = float(r[col])
            A.ok((x != x and v != v) or abs(x - v) <= 1e-6 * max(v, 1e-9) + 1e-12,
                 "%s column %d: %s, recomputed %g" % (w, col, r[col], v))
        A.ok(int(r[12]) == int(c.ident) and int(r[13]) == c.dup_of,
             w + ": bit-identical or duplicate flags")
        A.word(r[14].replace("-", " "), c.verdict, w + " verdict")


def check_rule(A, cs, md, me, n, s0, s1, what):
    ident = sum(1 for c in cs if c.ident)
    dup = sum(1 for c in cs if c.dup_of >= 0)
    lost = sum(1 for c in cs if c.metric == "lost" and c.diff_test)
    lostc = (" (%d of them compare the percentages of updates lost, for a difference only)" % lost
             if lost else "")
    m = A.take1("**Rule.**  Two policies are compared seed by seed (the same seed gives both the "
                "same initialisation, split and batches); d is the per-seed difference of their "
                "test accuracies, in points.  A difference is called (*higher*, *lower*) when the "
                "two-sided paired t-test's p-value, adjusted by Holm's method over the {I} "
                "difference tests of this section" + lostc + ", is below 0.05; *equivalent* means that two "
                "one-sided tests (TOST) place mean(d) within ±{N} point of 0, with the p-value "
                "adjusted by Holm over the {I} equivalence tests; otherwise the difference is "
                "*not shown* at {I} seeds.  Each verdict shows mean(d) ± the half-width of its "
                "95% confidence interval.  Runs bit-identical in every seed (the same loss at "
                "every step and the same accuracy: equal hashes in the data) are "
                "*bit-identical*, merged and not tested ({I} comparisons); a comparison of the "
                "same runs as an earlier one is merged with it ({I}).", what + " rule",
                start=s0, end=s1)
    if m:
        for g, v in ((1, md), (2, MARGIN), (3, me), (4, n), (5, ident), (6, dup)):
            A.num(m.group(g), v, what + " rule")


def setting_cmps(S, ps_key=None):
    """each group's accuracy comparison with binary32, in policy order"""
    key = ps_key or S.name
    rep = S.groups()
    out = []
    for p in S.pols[1:]:
        if rep[p] != p:
            continue
        out.append(Cmp("%s:%s" % (key, p), "%s:%s" % (key, S.pols[0]), "acc", S.acc(p),
                       S.acc(S.pols[0]), S.hashes(p), S.hashes(S.pols[0])))
    return out


def verdict_groups(S, bykey):
    order = [("bit-identical", "bit-identical to binary32"),
             ("equivalent", "equivalent to binary32 (±1 point)"),
             ("not shown", "difference not shown"), ("lower", "lower than binary32"),
             ("higher", "higher than binary32")]
    rep = S.groups()
    parts = []
    for w, label in order:
        ps = [p for p in S.pols[1:] if rep[p] == p and bykey["%s:%s" % (S.name, p)].verdict == w]
        if ps:
            parts.append(label + ": " + ", ".join(ps))
    return "; ".join(parts)


def merged_text(S):
    rep = S.groups()
    parts = []
    for p in S.pols:
        members = [q for q in S.pols if rep[q] == p]
        if rep[p] == p and len(members) > 1:
            parts.append(" = ".join(members))
    return "; ".join(parts)


POLICY_LABELS = {
    "fp32": "binary32 throughout", "fp16": "fp16 autocast, no loss scaling",
    "fp16-static:1024": "fp16 autocast, static scale 1024",
    "fp16-torch": "fp16 autocast, GradScaler",
    "fp16-torch-i50": "fp16 autocast, GradScaler, growth interval 50",
    "o2": "fp16 weights, fp32 master copy, dynamic scale",
    "o3": "fp16 weights and optimizer state, no master copy, no scaling",
    "o3-state32": "fp16 weights, fp32 optimizer state, no master copy, no scaling",
    "bf16": "bf16 autocast", "bf16-pure": "bf16 weights and optimizer state, no master copy",
    "bf16-pure-sr": "bf16 weights and optimizer state, no master copy, stochastic rounding",
    "fp16-pure": "fp16 weights, fp32 optimizer state, no master copy, no scaling",
    "fp16-pure-sr": "fp16 weights, fp32 optimizer state, no master copy, stochastic rounding",
    "fp16-acc16": "fp16 autocast, no loss scaling, fp16 sequential accumulation",
    "fp16-torch-acc16": "fp16 autocast, GradScaler, fp16 sequential accumulation",
    "fp16-torch-tc32": "fp16 autocast, GradScaler, H100 tensor-core blocks, fp32 accumulation",
    "fp16-torch-tc16": "fp16 autocast, GradScaler, H100 tensor-core blocks, fp16 accumulation",
}


def label_of(words):
    """what a policy does, checked against its definition in the data (block
    3): the label must name its compute format, scaling and master copy"""
    return POLICY_LABELS.get(words[0])


def check_label(A, p, w, what):
    """the label's claims against the data's policy words: compute, accum,
    weights, master, state, update rounding, scaling"""
    lab = POLICY_LABELS.get(p)
    if not A.ok(lab is not None, "%s: no label for policy %s" % (what, p)):
        return
    compute, acc, weights, master, state, upd, sc = w
    lab_l = lab.lower()
    if compute == "binary32":
        A.ok("binary32" in lab_l, "%s %s: binary32 compute, label '%s'" % (what, p, lab))
    elif "autocast" in lab_l:
        A.ok(lab_l.startswith({"binary16": "fp16", "bfloat16": "bf16"}[compute]),
             "%s %s: autocast label '%s' for compute %s" % (what, p, lab, compute))
        A.ok(weights == "binary32", "%s %s: autocast with %s weights" % (what, p, weights))
    if "master copy" in lab_l and "no master" not in lab_l:
        A.ok(master == "binary32", "%s %s: label says master copy, data %s" % (what, p, master))
    if "no master" in lab_l:
        A.ok(master == "none", "%s %s: label says no master copy, data %s" % (what, p, master))
    if "fp32 optimizer state" in lab_l:
        A.ok(state == "binary32", "%s %s: label says fp32 state, data %s" % (what, p, state))
    if "weights and optimizer state" in lab_l:
        A.ok(state == weights and weights != "binary32",
             "%s %s: label says low-precision state, data %s/%s" % (what, p, weights, state))
    if "no loss scaling" in lab_l or "no scaling" in lab_l:
        A.ok(sc == "none", "%s %s: label says no scaling, data %s" % (what, p, sc))
    if "gradscaler" in lab_l:
        A.ok(sc.startswith("GradScaler"), "%s %s: label says GradScaler, data %s" % (what, p, sc))
    if "static scale" in lab_l:
        A.ok(sc.startswith("static:"), "%s %s: label says static scale, data %s" % (what, p, sc))
    if "dynamic scale" in lab_l:
        A.ok(sc.startswith("apex-dynamic"), "%s %s: dynamic scale, data %s" % (what, p, sc))
    if "stochastic rounding" in lab_l:
        A.ok(upd == "stochastic", "%s %s: label says SR, data %s" % (what, p, upd))
    else:
        A.ok(upd == "nearest", "%s %s: SR not in the label, data %s" % (what, p, upd))
    if "fp16 sequential accumulation" in lab_l:
        A.ok(acc == "output-format-sequential" and compute == "binary16",
             "%s %s: fp16 sequential accumulation, data %s" % (what, p, acc))
    elif "tensor-core" in lab_l:
        A.ok(acc == "tc-h100-fp16-acc%s" % ("16" if "fp16 accumulation" in lab_l else "32"),
             "%s %s: tensor-core accumulation, data %s" % (what, p, acc))
    else:
        A.ok(acc == "binary32", "%s %s: products accumulated in %s" % (what, p, acc))


def check_policy_table(A, sets, s0, s1, what, intro):
    """'What each policy does' against the data's policy words"""
    A.take1(intro + "\n\n| policy | matrix products and activations | products accumulated in | "
            "weights | optimizer state | loss scaling |", what + " policy table", start=s0, end=s1)
    seen = []
    for S in sets:
        W = S.words()
        for p in S.pols:
            if p in seen:
                continue
            seen.append(p)
            w = W[p]
            check_label(A, p, w, what)
            compute, acc, weights, master, state, upd, sc = w
            if acc == "binary32":
                acct = "binary32"
            elif acc == "output-format-sequential":
                acct = "%s, every partial sum rounded" % compute
            else:
                mm = re.fullmatch(r"tc-(\S+)-acc(16|32)", acc)
                acct = "%s tensor-core blocks of {I}, %s between blocks" % (
                    mm.group(1), "binary16" if mm.group(2) == "16" else "binary32")
            wt = weights + (", binary32 master copy" if master == "binary32" else
                            ", updated with stochastic rounding" if upd == "stochastic" else "")
            if sc == "none":
                sct = "none"
            elif sc.startswith("static:"):
                sct = "static %s" % sc.split(":")[1]
            else:
                kind, init = sc.split(":")
                sct = "%s from %s, growth interval {I}" % (kind, init)
            A.take1("| %s (`%s`) | %s | %s | %s | %s | %s |" % (POLICY_LABELS[p], p, compute,
                                                              acct, wt, state, sct),
                    "%s policy row %s" % (what, p), start=s0, end=s1)
    return seen


def check_table(A, S, F, bykey, s0, s1):
    params = re.search(r"setting=\w+ (.*) seeds=", S.curves.header["params"]).group(1)
    t0 = A.text.find("**Setting %s** (" % S.name, s0, s1)
    t1 = A.text.find("**Setting ", t0 + 1, s1)
    t0 = s0 if t0 < 0 else t0
    t1 = s1 if t1 < 0 else t1
    m = A.take1("**Setting %s** ({S}; data_seed is the first of the {I} seeds):" % S.name,
                "table title " + S.name, start=s0, end=s1)
    if m:
        A.word(m.group(1), params, S.name + " parameters")
        A.num(m.group(2), S.n, S.name + " seeds")
    A.take("| policy | final loss | test accuracy % (min–max) | vs binary32 | skipped steps | final "
           "scale | updates lost % | w-grad zero | w-grad flushed | a-grad zero | a-grad "
           "flushed |", "table header", count=None, start=s0, end=s1)
    rep = S.groups()
    W = S.words()
    for p in S.pols:
        if rep[p] != p:
            continue
        members = [q for q in S.pols if rep[q] == p]
        name = " = ".join("%s (`%s`)" % (POLICY_LABELS.get(q, q), q) for q in members)
        m = A.take1("| %s | {C} | {N} ± {N} ({N}–{N}) | {C} | {I} | {C} | {C} | {C} | {C} | "
                    "{C} | {C} |" % name, "%s row %s" % (S.name, p), start=t0, end=t1)
        if not m:
            continue
        what = "%s %s" % (S.name, p)
        loss = S.col(p, 6)
        div = S.diverged(p)
        if div:
            A.word(m.group(1), "diverged (%d of %d seeds)" % (div, S.n), what + " loss")
        else:
            mm = re.fullmatch(r"(%s) ± (%s)" % (NUM, NUM), m.group(1))
            if A.ok(mm is not None, what + " loss cell"):
                lm, ls = mean_sd(loss)
                A.num(mm.group(1), lm, what + " loss mean", rel=1e-7)
                A.num(mm.group(2), ls, what + " loss sd", rel=1e-6, slack=1e-9)
        acc = S.acc(p)
        am, asd = mean_sd(acc)
        A.num(m.group(2), am, what + " accuracy mean")
        A.num(m.group(3), asd, what + " accuracy sd")
        A.num(m.group(4), min(acc), what + " accuracy min")
        A.num(m.group(5), max(acc), what + " accuracy max")
        if p == S.pols[0]:
            A.word(m.group(6), "-", what + " vs")
        else:
            check_cmp_text(A, m.group(6), bykey["%s:%s" % (S.name, p)], what + " vs binary32")
        A.num(m.group(7), sum(int(r[8]) for r in S.runs[p]), what + " skipped")
        sc = S.col(p, 9)
        A.word(m.group(8), scale_text(min(sc)) if min(sc) == max(sc) else
               "%s–%s" % (scale_text(min(sc)), scale_text(max(sc))), what + " scale")
        cells = [m.group(g) for g in range(9, 14)]
        b32 = W[p][0] == "binary32"
        if div:
            # a diverged run gets no update or gradient figures
            A.ok(all(c == "-" for c in cells), what + ": figures for a diverged policy")
            continue
        mm = re.fullmatch(r"(%s) ± (%s)" % (NUM, NUM), cells[0])
        if A.ok(mm is not None, what + " lost cell"):
            lm, ls = mean_sd(S.lost(p))
            A.num(mm.group(1), lm, what + " lost mean")
            A.num(mm.group(2), ls, what + " lost sd")
        for cell, (num, den), flushed in ((cells[1], (13, 12), False), (cells[2], (14, 12), True),
                                          (cells[3], (16, 15), False), (cells[4], (17, 15), True)):
            if flushed and b32:
                A.word(cell, "-", what + ": a flushed fraction for a binary32 compute format")
                continue
            mm = re.fullmatch(r"(%s)%%" % NUM, cell)
            if A.ok(mm is not None, what + " gradient cell '%s'" % cell):
                A.num(mm.group(1), S.frac(p, num, den), what + " gradient cell")
        A.ok(all(int(r[3]) <= int(r[4]) for r in S.runs[p]), what + " correct > n_test")
    # the per-policy summary block the plots draw, and the groups block
    for r in S.seeds.blocks[1]:
        acc = S.acc(r[1])
        am, asd = mean_sd(acc)
        A.ok(int(r[2]) == S.n and abs(float(r[3]) - am) < 1e-5 and abs(float(r[4]) - asd) < 1e-5
             and abs(float(r[5]) - min(acc)) < 1e-5 and abs(float(r[6]) - max(acc)) < 1e-5,
             "%s seeds block 1 row %s disagrees with block 0" % (S.name, r[1]))
    for r in S.seeds.blocks[2]:
        A.ok(S.pols[int(r[2])] == rep[r[1]], "%s groups block: %s" % (S.name, r[1]))
    f0 = S.acc(S.pols[0])
    for p in S.pols:
        for r, a, b in zip(S.runs[p], S.acc(p), f0):
            A.ok(abs(float(r[19]) - (a - b)) < 1e-6, "%s %s: acc_diff column" % (S.name, p))
    # the curves: the last step's mean loss is the mean of the seeds' final losses
    for i, p in enumerate(S.pols):
        lastrow = S.curves.blocks[i][-1]
        loss = S.col(p, 6)
        if all(math.isfinite(x) for x in loss):
            A.ok(abs(float(lastrow[1]) - statistics.fmean(loss)) <= 1e-6 * abs(float(lastrow[1])),
                 "%s curves: last mean loss of %s" % (S.name, p))
        else:
            A.ok(int(lastrow[4]) == sum(1 for x in loss if math.isfinite(x)),
                 "%s curves: finite count of %s" % (S.name, p))
    # bit-identical policies have identical curves (a consequence the hash
    # promises: the same loss at every step)
    for p in S.pols:
        q = rep[p]
        if q != p:
            A.ok([r[1:5] for r in S.curves.blocks[S.pols.index(p)]] ==
                 [r[1:5] for r in S.curves.blocks[S.pols.index(q)]],
                 "%s: %s and %s have equal hashes but different curves" % (S.name, p, q))
    A.take("*Final loss, test accuracy, updates lost*: mean ± sample standard deviation over "
           "the {I} seeds.  *vs binary32*: the verdict of the rule above, with mean(d) ± the "
           "half-width of its 95% interval and the Holm-adjusted p-value that decided it.  "
           "Policies joined by = are bit-identical in every seed and share a row.  *Skipped "
           "steps*: summed over the seeds.  *Zero*: gradient values exactly zero as computed "
           "(where the layer's input is zero for the whole batch, or an upstream gradient was "
           "flushed); *flushed*: nonzero values that become zero when rounded into the compute "
           "format at the scale used (- for a binary32 compute format, which flushes nothing "
           "here); both are fractions of all gradient values over every step and layer, "
           "averaged over the seeds.  A policy whose loss turned non-finite gets - for its "
           "updates and gradients.", "table footnote", count=None, start=s0, end=s1)


CAPTION_PANELS = ("Small panels: each policy's training loss per step divided by binary32's in "
                  "the same seed (geometric mean over the seeds; band: smallest to largest "
                  "ratio; at 1 the policy matches binary32).  Bottom left: each seed's test "
                  "accuracy minus binary32's (dots) with the mean and its 95% confidence "
                  "interval (bar); dashed: the equivalence margin ±1 point; the label is the "
                  "verdict.")


def power_numbers(cs, md, n, prefixes):
    tested = [c for c in cs if c.equiv_test and any(c.a_key.startswith(x) for x in prefixes)]
    sd = math.sqrt(statistics.fmean([c.sd ** 2 for c in tested])) if tested else float("nan")
    alpha = 0.05 / max(md, 1)

    def detect(a):
        return (t_q(1 - a / 2, n - 1) + t_q(0.8, n - 1)) * sd / math.sqrt(n)

    def need(a):
        for k in range(2, 1001):
            if 1 - t_cdf(t_q(1 - a / 2, k - 1) - MARGIN * math.sqrt(k) / sd, k - 1) >= 0.8:
                return k
        return 0
    return sd, len(tested), alpha, detect(alpha), need(alpha), detect(0.05), need(0.05)


def check_power(A, cs, md, n, T, s0, s1):
    sd, cnt, alpha, det, need, det05, need05 = power_numbers(cs, md, n, ("default:", "deep:"))
    row = [float(x) for x in T.blocks[1][0]]
    for got, want, what in ((row[0], sd, "pooled sd"), (row[1], cnt, "count"),
                            (row[2], alpha, "alpha"), (row[3], det, "detectable"),
                            (row[4], need, "seeds needed"), (row[5], det05, "detectable at 0.05"),
                            (row[6], need05, "seeds at 0.05")):
        A.ok(abs(got - want) <= 1e-6 * max(1, abs(want)), "power data %s: %g, recomputed %g"
             % (what, got, want))
    m = A.take1("**Power.**  In the two control settings the {I} tested accuracy comparisons have a "
                "pooled paired standard deviation of {N} points.  With that spread and {I} seeds, a "
                "paired t-test at Holm's strictest level 0.05/{I} detects with 80% power a "
                "difference of {N} points; a difference of {N} point (the equivalence margin) needs "
                "{S} ({S} at the unadjusted level 0.05, where {I} seeds detect {N} points).  A "
                "difference smaller than that can hide behind *not shown* and behind *equivalent*.",
                "power statement", start=s0, end=s1)
    if m:
        A.num(m.group(1), cnt, "power count")
        A.num(m.group(2), sd, "pooled sd")
        A.num(m.group(3), n, "power seeds")
        A.num(m.group(4), md, "power m")
        A.num(m.group(5), det, "detectable")
        A.num(m.group(6), MARGIN, "margin")
        A.word(m.group(7), "%d seeds" % need if need else "more than 1000 seeds", "seeds needed")
        A.word(m.group(8), "%d" % need05 if need05 else "more than 1000", "seeds at 0.05")
        A.num(m.group(9), n, "power seeds")
        A.num(m.group(10), det05, "detectable at 0.05")


def check_training(A, d, span):
    s0, s1 = span
    names = ("default", "deep", "tiny", "adam")
    sets = {nm: Setting(d, nm) for nm in names}
    sw = Dat(os.path.join(d, "training_tiny_sweep.dat"))
    T = Dat(os.path.join(d, "training_tests.dat"))
    n = sets["default"].n
    for S in sets.values():
        A.ok(S.n == n and all(len(v) == n for v in S.runs.values()), S.name + ": seeds per policy")
        seeds = [int(r[2]) for r in S.runs["fp32"]]
        A.ok(all([int(r[2]) for r in S.runs[p]] == seeds for p in S.pols), S.name + ": same seeds")
    seed0 = int(sets["default"].runs["fp32"][0][2])
    ntr = {int(r[5]) for S in sets.values() for r in S.seeds.blocks[0]}
    nte = {int(r[4]) for S in sets.values() for r in S.seeds.blocks[0]}
    A.ok(len(ntr) == 1 and len(nte) == 1, "training: split sizes differ between runs")
    # the family of comparisons, rebuilt from the per-seed data
    cs = []
    for nm in names:
        S = sets[nm]
        cs += setting_cmps(S)
        if nm in ("default", "deep"):
            cs.append(Cmp(nm + ":o3", nm + ":fp32", "lost", S.lost("o3"), S.lost("fp32"),
                          S.hashes("o3"), S.hashes("fp32")))
    sweep_w = sorted({int(r[0]) for r in sw.blocks[0]}, reverse=True)
    Sf = sets["tiny"]
    f32 = {int(r[2]): (100.0 * int(r[3]) / int(r[4]), r[18]) for r in Sf.runs["fp32"]}
    for w in sweep_w:
        rows = [r for r in sw.blocks[0] if int(r[0]) == w]
        ref = [f32[int(r[1])] for r in rows]
        for pi, pname in enumerate(("fp16", "fp16-torch")):
            a = [100.0 * int(r[2 if pi == 0 else 6]) / int(r[3]) for r in rows]
            ha = [r[8 + pi] for r in rows]
            cs.append(Cmp("sweep%d:%s" % (w, pname), "tiny:fp32", "acc", a, [x[0] for x in ref],
                          ha, [x[1] for x in ref]))
    md, me = finish_family(cs)
    bykey = {}
    for c in cs:
        bykey.setdefault(c.a_key if c.metric == "acc" else c.a_key + "/lost", c)
    family_rows(A, T, cs, "training tests")
    m = A.take1("Four settings of the same MLP on the digits ({I} training and {I} test images "
                "per split).  Every policy is trained with {I} seeds, {I} to {I}; the seed sets "
                "the initialisation, the train/test split and the batch order, and every policy "
                "sees the same seeds.  *default* and *deep* are controls.  *tiny* makes every "
                "gradient 2^16 times smaller (loss weight W = 2^-16): the loss-scaling failure.  "
                "*adam* uses Adam at a fine-tuning learning rate: the lost-update failure.",
                "training intro", start=s0, end=s1)
    if m:
        A.num(m.group(1), ntr.pop(), "train images")
        A.num(m.group(2), nte.pop(), "test images")
        for g, v in ((3, n), (4, seed0), (5, seed0 + n - 1)):
            A.num(m.group(g), v, "training intro")
    check_policy_table(A, [sets[nm] for nm in names], s0, s1, "training",
                       "What each policy does (every policy of this section accumulates its "
                       "matrix products in binary32; experiment 8 accumulates in binary16):")
    A.ok(all(w[1] == "binary32" for S in sets.values() for w in S.words().values()),
         "training: a policy of this section does not accumulate in binary32")
    check_rule(A, cs, md, me, n, s0, s1, "training")
    check_power(A, cs, md, n, T, s0, s1)
    for name in ("default", "deep"):
        S = sets[name]
        check_table(A, S, None, bykey, s0, s1)
        A.take1("*Figure training_%s*" % name, "figure", start=s0, end=s1)
        mg = merged_text(S)
        m = A.take1(("Training in the %s setting, {I} seeds.  " % name) + CAPTION_PANELS +
                    "  Bottom right: the loss scale per step (first seed), skipped steps marked "
                    "×.  binary32 reaches {N} ± {N}% test accuracy; by the rule, {S}" +
                    ("; bit-identical in every seed, merged: " + mg if mg else "") +
                    ".  GradScaler skipped {I} steps over the {I} seeds ({I} with growth "
                    "interval 50).  fp16 weights and optimizer state without a master copy (o3) "
                    "lose {N} ± {N}% of their weight updates against binary32's {N} ± {N}%: {S}.\n",
                    name + " caption", start=s0, end=s1)
        if m:
            A.num(m.group(1), n, "seeds")
            am, asd = mean_sd(S.acc("fp32"))
            A.num(m.group(2), am, "fp32 mean")
            A.num(m.group(3), asd, "fp32 sd")
            A.word(m.group(4), verdict_groups(S, bykey), name + " groups")
            A.num(m.group(5), sum(int(r[8]) for r in S.runs["fp16-torch"]), "GradScaler skipped")
            A.num(m.group(6), n, "seeds")
            A.num(m.group(7), sum(int(r[8]) for r in S.runs["fp16-torch-i50"]), "i50 skipped")
            o3m, o3s = mean_sd(S.lost("o3"))
            fm, fsd = mean_sd(S.lost("fp32"))
            for g, v in ((8, o3m), (9, o3s), (10, fm), (11, fsd)):
                A.num(m.group(g), v, "lost updates")
            check_cmp_text(A, m.group(12), bykey[name + ":o3/lost"], name + " o3 lost updates")
            A.ok(S.diverged("o3") == 0, name + ": lost updates claimed for a diverged o3")

    # tiny
    S = sets["tiny"]
    D = sets["default"]
    check_table(A, S, None, bykey, s0, s1)
    same = (all(a[1:5] == b[1:5] for a, b in zip(D.curves.blocks[0], S.curves.blocks[0]))
            and [r[3:8] for r in D.runs["fp32"]] == [r[3:8] for r in S.runs["fp32"]]
            and D.hashes("fp32") == S.hashes("fp32"))
    if same:
        A.take1("In binary32, loss weight W = 2^-16 with lr 0.05/W trains bit for bit like the "
                "default setting (W = 1, lr 0.05) in all %d seeds: the same loss at every step "
                "and the same test accuracy.  " % n, "tiny bit for bit", start=s0, end=s1)
    else:
        A.take1("In binary32, loss weight W = 2^-16 with lr 0.05/W does not train bit for bit "
                "like the default setting (W = 1, lr 0.05): largest relative difference of the "
                "per-step loss over %d seeds {N}.  " % n, "tiny not bit for bit", start=s0, end=s1)
    uf = {int(r[0]): [int(x) for x in r[1:]] for r in sw.blocks[1]}
    m = A.take1("Its gradients are those of the default run times 2^-16; rounded into binary16 "
                "without scaling, {N}% of the nonzero weight gradients and {N}% of the nonzero "
                "activation gradients of those binary32 runs (all seeds, every step) would round "
                "to zero.", "tiny underflow", start=s0, end=s1)
    if m:
        A.num(m.group(1), 100.0 * uf[-16][1] / uf[-16][0], "tiny w underflow")
        A.num(m.group(2), 100.0 * uf[-16][3] / uf[-16][2], "tiny a underflow")
    m = A.take1("Measured: fp16 without scaling reaches {N} ± {N}% test accuracy against "
                "binary32's {N} ± {N}%; {N}% of its computed weight-gradient values are exactly "
                "zero (binary32: {N}%) and {N}% more are flushed when rounded into binary16, and "
                "{N}% of its activation gradients are zero or flushed (binary32: {N}% zero).  "
                "By the rule, {S}.  GradScaler skipped {I} steps over the {I} seeds.",
                "tiny measured", start=s0, end=s1)
    if m:
        vals = list(mean_sd(S.acc("fp16"))) + list(mean_sd(S.acc("fp32"))) + [
            S.frac("fp16", 13, 12), S.frac("fp32", 13, 12), S.frac("fp16", 14, 12),
            S.frac("fp16", 16, 15) + S.frac("fp16", 17, 15), S.frac("fp32", 16, 15)]
        for g, v in enumerate(vals, 1):
            A.num(m.group(g), v, "tiny measured %d" % g, slack=0.06 if g == 8 else 0)
        A.word(m.group(10), verdict_groups(S, bykey), "tiny groups")
        A.num(m.group(11), sum(int(r[8]) for r in S.runs["fp16-torch"]), "tiny GradScaler skipped")
        A.num(m.group(12), n, "seeds")
    fm, fsd = mean_sd(S.acc("fp32"))
    m = A.take1("Loss-weight sweep (same model, lr 0.05/W, {I} seeds; binary32 reference {N} ± "
                "{N}%; the flushed columns are the binary32 runs' nonzero gradients that "
                "binary16 would flush to zero at S = 1):", "sweep intro", start=s0, end=s1)
    if m:
        A.num(m.group(1), n, "seeds")
        A.num(m.group(2), fm, "sweep reference")
        A.num(m.group(3), fsd, "sweep reference sd")
    A.take1("| W | weight grads flushed | activation grads flushed | fp16 accuracy % | "
            "vs binary32 | GradScaler accuracy % | vs binary32 | GradScaler skipped steps |",
            "sweep header", start=s0, end=s1)
    vw = [{}, {}]
    summ = {int(r[0]): r[1:] for r in sw.blocks[2]}
    dups = []
    for w in sweep_w:
        rows = [r for r in sw.blocks[0] if int(r[0]) == w]
        a16 = [100.0 * int(r[2]) / int(r[3]) for r in rows]
        ags = [100.0 * int(r[6]) / int(r[3]) for r in rows]
        div = sum(1 for r in rows if int(r[5]))
        c16 = bykey["sweep%d:fp16" % w]
        cgs = bykey["sweep%d:fp16-torch" % w]
        m = A.take1("| 2^%d | {N}%% | {N}%% | {N} ± {N}{C} | {C} | {N} ± {N} | {C} | {I} |" % w,
                    "sweep row %d" % w, start=s0, end=s1)
        for pi, c in enumerate((c16, cgs)):
            vw[pi].setdefault(c.verdict, []).append("2^%d" % w)
            if c.dup_of >= 0:
                dups.append("%s = %s" % (c.a_key, cs[c.dup_of].a_key))
        if not m:
            continue
        A.num(m.group(1), 100.0 * uf[w][1] / uf[w][0], "sweep w underflow")
        A.num(m.group(2), 100.0 * uf[w][3] / uf[w][2], "sweep a underflow")
        a16m, a16s = mean_sd(a16)
        agsm, agss = mean_sd(ags)
        A.num(m.group(3), a16m, "sweep fp16 mean")
        A.num(m.group(4), a16s, "sweep fp16 sd")
        A.word(m.group(5), ", diverged in %d" % div if div else "", "sweep divergence")
        check_cmp_text(A, m.group(6), c16, "sweep fp16 vs binary32 at 2^%d" % w)
        A.num(m.group(7), agsm, "sweep GradScaler mean")
        A.num(m.group(8), agss, "sweep GradScaler sd")
        check_cmp_text(A, m.group(9), cgs, "sweep GradScaler vs binary32 at 2^%d" % w)
        A.num(m.group(10), sum(int(r[7]) for r in rows), "sweep skipped")
        A.ok(abs(float(summ[w][0]) - a16m) < 1e-5 and abs(float(summ[w][2]) - agsm) < 1e-5 and
             abs(float(summ[w][4]) - fm) < 1e-5 and summ[w][6].replace("-", " ") == c16.verdict
             and summ[w][7].replace("-", " ") == cgs.verdict, "sweep block 2 disagrees at 2^%d" % w)
    vord = [("lower", "lower than binary32"), ("higher", "higher than binary32"),
            ("equivalent", "equivalent to binary32 (±1 point)"),
            ("not shown", "difference not shown"), ("bit-identical", "bit-identical to binary32")]
    summ_t = ["; ".join("%s at W = %s" % (lab, ", ".join(vw[pi][v])) for v, lab in vord if v in vw[pi])
              for pi in (0, 1)]
    A.take1("By the rule, fp16 without scaling: %s.  GradScaler: %s.  %d of the sweep's %d "
            "comparisons repeat runs compared before, bit-identical in every seed, and are merged "
            "with them%s." % (summ_t[0], summ_t[1], len(dups), 2 * len(sweep_w),
                              (": " + ", ".join(dups)) if dups else ""),
            "sweep summary", start=s0, end=s1)
    A.take1("*Figure training_tiny*", "figure", start=s0, end=s1)
    m = A.take1("Training with loss weight 2^-16, {I} seeds.  " + CAPTION_PANELS + "  The last "
                "small panel: the loss-weight sweep (test accuracy, mean ± standard deviation, "
                "against W).  Bottom right: the loss scale per step (first seed), skipped steps "
                "marked ×.  fp16 without scaling {N} ± {N}% against binary32's {N} ± {N}%: {S}; "
                "GradScaler {N} ± {N}%: {S}.\n", "tiny caption", start=s0, end=s1)
    if m:
        rep = S.groups()
        A.num(m.group(1), n, "seeds")
        for g, v in zip((2, 3, 4, 5), list(mean_sd(S.acc("fp16"))) + list(mean_sd(S.acc("fp32")))):
            A.num(m.group(g), v, "tiny caption")
        check_cmp_text(A, m.group(6), bykey["tiny:" + rep["fp16"]], "tiny caption fp16")
        for g, v in zip((7, 8), mean_sd(S.acc("fp16-torch"))):
            A.num(m.group(g), v, "tiny caption GradScaler")
        check_cmp_text(A, m.group(9), bykey["tiny:" + rep["fp16-torch"]], "tiny caption GradScaler")

    # adam
    S = sets["adam"]
    check_table(A, S, None, bykey, s0, s1)
    m = A.take1("Measured: with Adam at lr 1e-4, binary32 reaches {N} ± {N}% test accuracy "
                "(final loss {N} ± {N}).  bfloat16 weights and optimizer state without a master "
                "copy (bf16-pure) lose {N} ± {N}% of their weight updates (w + dw == w in "
                "bfloat16) and reach {N} ± {N}%; with binary32 weights (bf16 autocast) {N} ± "
                "{N}%.  fp16 weights with a binary32 master copy (o2) reach {N} ± {N}%, fp16 "
                "autocast {N} ± {N}%; binary32 weights lose {N} ± {N}% of their updates.  By the "
                "rule, {S}.\n", "adam measured", start=s0, end=s1)
    if m:
        vals = (list(mean_sd(S.acc("fp32"))) + list(mean_sd(S.col("fp32", 6))) +
                list(mean_sd(S.lost("bf16-pure"))) + list(mean_sd(S.acc("bf16-pure"))) +
                list(mean_sd(S.acc("bf16"))) + list(mean_sd(S.acc("o2"))) +
                list(mean_sd(S.acc("fp16"))) + list(mean_sd(S.lost("fp32"))))
        for g, v in enumerate(vals, 1):
            A.num(m.group(g), v, "adam measured %d" % g, rel=1e-6 if g in (3, 4) else 0)
        A.word(m.group(17), verdict_groups(S, bykey), "adam groups")
        A.ok(S.diverged("bf16-pure") == 0 and S.diverged("fp32") == 0,
             "adam: lost updates claimed for a diverged run")
    check_adam_cause(A, S, bykey, n, s0, s1)
    A.take1("*Figure training_adam*", "figure", start=s0, end=s1)
    m = A.take1("Training with Adam at lr 1e-4, {I} seeds.  " + CAPTION_PANELS + "  A loss that "
                "turns non-finite is marked × at the first such step.  Bottom right: fraction of "
                "weight updates lost per step (w + dw == w in the weight format: binary32 for "
                "fp32, fp16 and bf16, whose optimizers update binary32 weights, and for o2's "
                "master copy; mean over the seeds whose loss never turns non-finite).  bf16-pure loses "
                "{N} ± {N}% of its updates and reaches {N} ± {N}%, binary32 {N} ± {N}%: "
                "bf16-pure {S}.\n", "adam caption", start=s0, end=s1)
    if m:
        A.num(m.group(1), n, "seeds")
        vals = (list(mean_sd(S.lost("bf16-pure"))) + list(mean_sd(S.acc("bf16-pure"))) +
                list(mean_sd(S.acc("fp32"))))
        for g, v in enumerate(vals, 2):
            A.num(m.group(g), v, "adam caption")
        check_cmp_text(A, m.group(8), bykey["adam:" + S.groups()["bf16-pure"]], "adam bf16-pure")
    return sets


def check_adam_cause(A, S, bykey, n, s0, s1):
    """o3's divergence and the run that changes only its optimizer state: the
    claim holds only if the two policies differ in the state alone, o3
    diverges, o3-state32 does not, and v flushes in o3's first step and not in
    o3-state32's or binary32's"""
    W = S.words()
    w3, w32 = W["o3"], W["o3-state32"]
    diff = [i for i in range(len(w3)) if w3[i] != w32[i]]
    A.ok(diff == [4] and w3[4] == "binary16" and w32[4] == "binary32",
         "adam: o3 and o3-state32 differ in more than the optimizer state (%r, %r)" % (w3, w32))
    div3, div32 = S.diverged("o3"), S.diverged("o3-state32")
    fnf = [int(r[7]) for r in S.runs["o3"] if int(r[7])]
    if div3 and div32:
        A.take1("fp16 weights and optimizer state without a master copy (o3) diverge in %d of %d "
                "seeds (non-finite loss {S}), and so does o3 with its optimizer state in binary32 "
                "(o3-state32) in %d: the state's format alone does not explain it.  With a "
                "non-finite loss their updates and gradients are not counted." % (div3, n, div32),
                "adam: both diverge", start=s0, end=s1)
        return
    if not div3:
        m = A.take1("fp16 weights and optimizer state without a master copy (o3) do not diverge "
                    "here and reach {N} ± {N}%; with its optimizer state in binary32 "
                    "(o3-state32) {N} ± {N}%: against binary32, {S}.", "adam: o3 trains",
                    start=s0, end=s1)
        if m:
            for g, v in zip((1, 2, 3, 4), list(mean_sd(S.acc("o3"))) + list(mean_sd(S.acc("o3-state32")))):
                A.num(m.group(g), v, "adam o3")
            check_cmp_text(A, m.group(5), bykey["adam:" + S.groups()["o3-state32"]], "adam o3-state32")
        return
    rng = ("from step %d on" % fnf[0]) if min(fnf) == max(fnf) else \
          ("from a step between %d and %d on" % (min(fnf), max(fnf)))
    m = A.take1("fp16 weights and optimizer state without a master copy (o3) diverge in {I} of {I} "
                "seeds: the loss is non-finite " + rng + ".  The cause is its binary16 optimizer state, not "
                "lost updates: after step 1, Adam's second moment v = (1-b2)g^2 is flushed to zero "
                "in binary16 while the first moment m is not for {I} of the {I} updated weights and "
                "biases (all seeds), so their update lr·m^/(sqrt(v^) + eps) is divided by eps = 1e-8 "
                "alone: the largest |dw| of step 1 is {N} to {N} over the seeds, against {N} in "
                "binary32.  The run that changes only that, o3 with its optimizer state in binary32 "
                "(o3-state32: binary16 weights and gradients, no master copy, no scaling), has v "
                "flushed for {I} weights (binary32: {I}), diverges in none of the {I} seeds and "
                "reaches {N} ± {N}%: against binary32, {S}.  With a non-finite loss o3's updates "
                "and gradients are not counted.", "adam cause", start=s0, end=s1)
    if not m:
        return
    vz3 = sum(int(r[21]) for r in S.runs["o3"])
    up3 = sum(int(r[20]) for r in S.runs["o3"])
    vz32 = sum(int(r[21]) for r in S.runs["o3-state32"])
    vzf = sum(int(r[21]) for r in S.runs["fp32"])
    dw3 = [float(r[22]) for r in S.runs["o3"]]
    dwf = max(float(r[22]) for r in S.runs["fp32"])
    A.num(m.group(1), div3, "o3 diverged")
    A.num(m.group(2), n, "seeds")
    A.num(m.group(3), vz3, "o3 v flushed")
    A.num(m.group(4), up3, "o3 updates")
    A.num(m.group(5), min(dw3), "o3 dw min")
    A.num(m.group(6), max(dw3), "o3 dw max")
    A.num(m.group(7), dwf, "fp32 dw")
    A.num(m.group(8), vz32, "o3-state32 v flushed")
    A.num(m.group(9), vzf, "fp32 v flushed")
    A.num(m.group(10), n, "seeds")
    for g, v in zip((11, 12), mean_sd(S.acc("o3-state32"))):
        A.num(m.group(g), v, "o3-state32 accuracy")
    check_cmp_text(A, m.group(13), bykey["adam:" + S.groups()["o3-state32"]], "adam o3-state32")
    # the support of "the cause is the state": o3 diverges in every seed at
    # its first steps, v flushes only there, and eps alone makes the update
    # large (lr m^/eps >> lr): the first |dw| must exceed binary32's by far
    A.ok(div3 == n and div32 == 0, "adam cause: o3 does not diverge in every seed, or "
         "o3-state32 diverges")
    A.ok(vz3 > 0 and vz32 == 0 and vzf == 0, "adam cause: v flushes where it should not, or not "
         "where it should")
    A.ok(min(dw3) > 1000 * dwf, "adam cause: o3's first updates are not far above binary32's")
    A.ok(all(int(r[7]) <= 3 for r in S.runs["o3"]), "adam cause: o3 diverges late, not at its "
         "first steps")


# ---- 8, 9, 10: accumulation, stochastic rounding, the language model --------

def section_family(A, d, S, extra, tests_name, what):
    """the section's comparisons rebuilt from the data: each group against
    binary32, then the extra pairs (a, b) of policies or a prebuilt Cmp"""
    cs = setting_cmps(S)
    for e in extra:
        if isinstance(e, Cmp):
            cs.append(e)
        else:
            a, b = e
            cs.append(Cmp("%s:%s" % (S.name, a), "%s:%s" % (S.name, b), "acc", S.acc(a),
                          S.acc(b), S.hashes(a), S.hashes(b)))
    md, me = finish_family(cs)
    family_rows(A, Dat(os.path.join(d, tests_name)), cs, what)
    bykey = {}
    for c in cs:
        bykey.setdefault(c.a_key + ("" if c.b_key.endswith(":fp32") else "|" + c.b_key), c)
    return cs, md, me, bykey


def check_setting_common(A, S, n, s0, s1, what):
    A.ok(all(len(v) == n for v in S.runs.values()), what + ": seeds per policy")
    seeds = [int(r[2]) for r in S.runs["fp32"]]
    A.ok(all([int(r[2]) for r in S.runs[p]] == seeds for p in S.pols), what + ": same seeds")
    return seeds


def check_pset_caption(A, S, bykey, stem, head, right, s0, s1):
    mg = merged_text(S)
    A.take1("*Figure %s*" % stem, "figure " + stem, start=s0, end=s1)
    m = A.take1(head + "  " + CAPTION_PANELS + "  " + right + "  By the rule, {S}" +
                ("; bit-identical in every seed, merged: " + mg if mg else "") + ".\n",
                stem + " caption", start=s0, end=s1)
    if m:
        A.word(m.group(m.lastindex), verdict_groups(S, bykey), stem + " caption verdicts")
    return m


def check_trainaccum(A, d, span):
    s0, s1 = span
    S = Setting(d, "accum")
    n = S.n
    seeds = check_setting_common(A, S, n, s0, s1, "accum")
    pairs = [("fp16-acc16", "fp16"), ("fp16-torch-acc16", "fp16-torch"),
             ("fp16-torch-tc32", "fp16-torch"), ("fp16-torch-tc16", "fp16-torch-tc32")]
    # the interaction: the effect of binary16 accumulation without scaling
    # minus its effect with GradScaler, seed by seed
    a16, a, g16, g = (S.acc(p) for p in ("fp16-acc16", "fp16", "fp16-torch-acc16", "fp16-torch"))
    inter = Cmp("accum:effect-unscaled", "accum:effect-GradScaler", "acc",
                [x - y for x, y in zip(a16, a)], [x - y for x, y in zip(g16, g)],
                ["i%s%s" % t for t in zip(S.hashes("fp16-acc16"), S.hashes("fp16"))],
                ["g%s%s" % t for t in zip(S.hashes("fp16-torch-acc16"), S.hashes("fp16-torch"))])
    cs, md, me, bykey = section_family(A, d, S, pairs + [inter], "trainaccum_tests.dat", "accum tests")
    # the data's accumulation words say what the labels say
    W = S.words()
    want = {"fp32": "binary32", "fp16": "binary32", "fp16-acc16": "output-format-sequential",
            "fp16-torch": "binary32", "fp16-torch-acc16": "output-format-sequential",
            "fp16-torch-tc32": "tc-h100-fp16-acc32", "fp16-torch-tc16": "tc-h100-fp16-acc16"}
    for p, acc in want.items():
        A.ok(W[p][1] == acc, "accum: %s accumulates in %s, not %s" % (p, W[p][1], acc))
    tr = int(S.runs["fp32"][0][5])
    te = int(S.runs["fp32"][0][4])
    m = A.take1("The default setting of experiment 6 (the MLP on the digits, {I} training and {I} "
                "test images per split), trained with {I} seeds, {I} to {I}, under fp16 autocast "
                "without and with GradScaler, with the matrix products accumulated in binary32 (as "
                "every policy of experiment 6), in binary16 one product at a time (every partial "
                "sum rounded to nearest even into binary16), and in H100 tensor-core blocks of {I} "
                "products (products exact, aligned to the largest exponent with {I} bits kept, "
                "the rest truncated) chained through binary32 or through binary16.  The longest "
                "sums here have {I} products (the batch, and the {I} inputs of a layer).",
                "accum intro", start=s0, end=s1)
    if m:
        for g, v in zip(range(1, 10), (tr, te, n, seeds[0], seeds[0] + n - 1, 16, 26, 64, 64)):
            A.num(m.group(g), v, "accum intro")
        p = S.curves.header["params"]
        A.ok("batch=64" in p and "width=64" in p and "depth=3" in p,
             "accum: the setting is not the default one (batch and width 64)")
    check_policy_table(A, [S], s0, s1, "accum", "What each policy does:")
    check_rule(A, cs, md, me, n, s0, s1, "accum")
    check_table(A, S, None, bykey, s0, s1)
    A.take1("What the accumulation did to the matrix products' outputs, against the same sums "
            "accumulated in binary32 and rounded once into binary16 (every product of every step, "
            "forward and backward, all seeds):\n\n| policy | outputs | differ | mean distance when "
            "they differ (binary16 spacings) | largest distance | became zero | became infinite | "
            "skipped steps |", "accum outputs header", start=s0, end=s1)
    st = {}
    for p in S.pols:
        rows = S.runs[p]
        t = [sum(int(r[c]) for r in rows) for c in (23, 24, 25)]
        mx = max(int(r[26]) for r in rows)
        nf = sum(int(r[27]) for r in rows)
        zr = sum(int(r[28]) for r in rows)
        dfr = 100.0 * t[1] / t[0] if t[0] else 0.0
        mu = t[2] / (t[1] - nf) if t[1] - nf else 0.0
        st[p] = (dfr, mu)
        if W[p][1] == "binary32":
            A.ok(t[0] == 0, "accum: %s counted outputs with binary32 accumulation" % p)
            continue
        A.ok(t[0] > 0 and t[1] <= t[0] and zr <= t[1] and nf <= t[1], "accum: counts of " + p)
        m = A.take1("| %s (`%s`) | {I} | {N}%% | {N} | {I} | {N}%% | {I} | {I} |"
                    % (POLICY_LABELS[p], p), "accum outputs " + p, start=s0, end=s1)
        if m:
            for g, v in zip(range(1, 8), (t[0], dfr, mu, mx, 100.0 * zr / t[0], nf,
                                          sum(int(r[8]) for r in rows))):
                A.num(m.group(g), v, "accum outputs %s %d" % (p, g))
    A.take1("*Distance*: the number of binary16 values between the output and the reference "
            "(ordinal distance), over the outputs that differ and are finite.  *Skipped steps*: "
            "GradScaler's, summed over the seeds (a step is skipped when a gradient is infinite "
            "or NaN, e.g. after a binary16 sum overflowed).", "accum outputs note", start=s0, end=s1)
    pk = ["accum:%s|accum:%s" % pr for pr in pairs]
    m = take_cmp(A, "Measured: binary16 accumulated one product at a time changes {N}% of the "
                 "outputs without loss scaling and {N}% with GradScaler (mean distance {N} and {N} "
                 "spacings); in tensor-core blocks chained through binary16, {N}% ({N} spacings); "
                 "chained through binary32, the truncation alone changes {N}% ({N} spacings).  "
                 "Against binary32 accumulation under the same scaling, by the rule: fp16-acc16 "
                 "against fp16 {V}; fp16-torch-acc16 against fp16-torch {V}; fp16-torch-tc32 "
                 "against fp16-torch {V}; fp16-torch-tc16 against fp16-torch-tc32 {V}.  The effect "
                 "of binary16 accumulation without scaling against its effect with GradScaler (the "
                 "interaction, seed by seed): {V}.  Against binary32 throughout, by the rule, {S}.",
                 "accum measured", start=s0, end=s1)
    if m:
        vals = [st["fp16-acc16"][0], st["fp16-torch-acc16"][0], st["fp16-acc16"][1],
                st["fp16-torch-acc16"][1], st["fp16-torch-tc16"][0], st["fp16-torch-tc16"][1],
                st["fp16-torch-tc32"][0], st["fp16-torch-tc32"][1]]
        for g, v in enumerate(vals, 1):
            A.num(m.group(g), v, "accum measured %d" % g)
        for g, k in zip(range(9, 13), pk):
            check_cmp_text(A, m.group(g), bykey[k], "accum " + k)
        check_cmp_text(A, m.group(13), bykey["accum:effect-unscaled|accum:effect-GradScaler"],
                       "accum interaction")
        A.word(m.group(14), verdict_groups(S, bykey), "accum verdicts")
    low0 = bykey[pk[0]].verdict == "lower"
    low1 = bykey[pk[1]].verdict == "lower"
    if low0 and low1:
        A.take1("On this model binary16 accumulation lowers the test accuracy, with and without loss "
                "scaling: Micikevicius et al.'s (2018) observation that some networks need binary32 "
                "accumulation reproduces here.", "accum paper claim", start=s0, end=s1)
    elif low0 or low1:
        A.take1("On this model binary16 accumulation lowers the test accuracy only %s loss scaling: "
                "Micikevicius et al.'s (2018) observation that some networks need binary32 "
                "accumulation reproduces only there." % ("without" if low0 else "with"),
                "accum paper claim", start=s0, end=s1)
    else:
        A.take1("On this model, with sums of at most 64 products, binary16 accumulation does not "
                "lower the test accuracy by the rule, with or without loss scaling: Micikevicius et "
                "al.'s (2018) observation that some networks need binary32 accumulation to keep "
                "their accuracy does not reproduce at this size; what it changes is in the outputs "
                "above.", "accum paper claim", start=s0, end=s1)
    m = check_pset_caption(A, S, bykey, "training_accum", "Accumulation in training, {I} seeds.",
                           "Bottom right: the loss scale per step (first seed), skipped steps "
                           "marked ×.", s0, s1)
    if m:
        A.num(m.group(1), n, "accum caption seeds")
    return {"accum": S}


def check_trainsr(A, d, span):
    s0, s1 = span
    S = Setting(d, "sr")
    n = S.n
    seeds = check_setting_common(A, S, n, s0, s1, "sr")
    pairs = [("bf16-pure-sr", "bf16-pure"), ("fp16-pure-sr", "fp16-pure")]
    cs, md, me, bykey = section_family(A, d, S, pairs, "trainsr_tests.dat", "sr tests")
    W = S.words()
    # SR against RNE: the two policies of a pair differ in the update's
    # rounding alone
    for a, b in pairs:
        diff = [i for i in range(len(W[a])) if W[a][i] != W[b][i]]
        A.ok(diff == [5] and W[a][5] == "stochastic" and W[b][5] == "nearest",
             "sr: %s and %s differ in more than the update's rounding" % (a, b))
    tr, te = int(S.runs["fp32"][0][5]), int(S.runs["fp32"][0][4])
    m = A.take1("The adam setting of experiment 6 (the MLP on the digits, {I} training and {I} "
                "test images per split, Adam at lr 1e-4), trained with {I} seeds, {I} to {I}, with "
                "the weights in bfloat16 or binary16 and no binary32 master copy: the optimizer "
                "adds each update to the low-precision weight and rounds once, to nearest even or "
                "stochastically (up with probability equal to the discarded fraction of a "
                "spacing, from a stream seeded by the run's seed).  An update of u spacings then "
                "survives with probability min(1, u): kept in expectation.", "sr intro",
                start=s0, end=s1)
    if m:
        for g, v in zip(range(1, 6), (tr, te, n, seeds[0], seeds[0] + n - 1)):
            A.num(m.group(g), v, "sr intro")
        A.ok("optimizer=adam lr=0.0001" in S.curves.header["params"], "sr: not Adam at 1e-4")
    check_policy_table(A, [S], s0, s1, "sr", "What each policy does:")
    check_rule(A, cs, md, me, n, s0, s1, "sr")
    check_table(A, S, None, bykey, s0, s1)
    m = take_cmp(A, "Measured: binary32 reaches {N} ± {N}%.  bfloat16 weights rounded to nearest "
                 "lose {N} ± {N}% of their updates and reach {N} ± {N}%; rounded stochastically "
                 "they lose {N} ± {N}% (each lost update is now a draw, not a certainty) and reach "
                 "{N} ± {N}%.  binary16 weights (binary32 optimizer state) lose {N} ± {N}% to "
                 "nearest and reach {N} ± {N}%, stochastically {N} ± {N}% and {N} ± {N}%.  By the "
                 "rule, {S}.  Stochastic against nearest rounding: bfloat16 {V}; binary16 {V}.",
                 "sr measured", start=s0, end=s1)
    if m:
        vals = list(mean_sd(S.acc("fp32")))
        for p in ("bf16-pure", "bf16-pure-sr", "fp16-pure", "fp16-pure-sr"):
            vals += list(mean_sd(S.lost(p))) + list(mean_sd(S.acc(p)))
        for g, v in enumerate(vals, 1):
            A.num(m.group(g), v, "sr measured %d" % g)
        A.word(m.group(19), verdict_groups(S, bykey), "sr verdicts")
        for g, (a, b) in zip((20, 21), pairs):
            check_cmp_text(A, m.group(g), bykey["sr:%s|sr:%s" % (a, b)], "sr %s" % a)
        A.ok(all(S.diverged(p) == 0 for p in S.pols), "sr: lost updates claimed for a diverged run")
    am = statistics.fmean(S.acc("fp32"))
    rel_h = 100.0 * (am - statistics.fmean(S.acc("fp16-pure"))) / am
    rel_b = 100.0 * (am - statistics.fmean(S.acc("bf16-pure"))) / am
    low = bykey["sr:" + S.groups()["fp16-pure"]].verdict == "lower"
    m = A.take1("Without a master copy and with round to nearest, binary16 weights lose {N}% of "
                "binary32's test accuracy (relative) and bfloat16 weights {N}%: Micikevicius et al. "
                "(2018) report 80% for a Mandarin speech model with fp16 weights; " +
                ("that the accuracy drops reproduces (lower by the rule), its size is this model's."
                 if low else "for binary16 weights that drop does not reproduce here (not lower "
                 "by the rule)."), "sr paper claim", start=s0, end=s1)
    if m:
        A.num(m.group(1), rel_h, "sr relative loss fp16")
        A.num(m.group(2), rel_b, "sr relative loss bf16")
    m = check_pset_caption(A, S, bykey, "training_sr", "Stochastic rounding in training (Adam at "
                           "lr 1e-4), {I} seeds.", "Bottom right: fraction of weight updates lost "
                           "per step (w + dw == w in the weight format; mean over the seeds).",
                           s0, s1)
    if m:
        A.num(m.group(1), n, "sr caption seeds")
    return {"sr": S}


def check_trainlm(A, d, span):
    s0, s1 = span
    S = Setting(d, "lm")
    n = S.n
    seeds = check_setting_common(A, S, n, s0, s1, "lm")
    cs, md, me, bykey = section_family(A, d, S, [], "trainlm_tests.dat", "lm tests")
    Fl = Dat(os.path.join(d, "trainlm_flush.dat"))
    rows_n = int(Fl.param("rows"))
    classes = int(Fl.param("classes"))
    tokens = int(Fl.param("tokens_per_step"))
    micro = int(Fl.param("micro_batches"))
    ctx = int(Fl.param("context"))
    text = Fl.param("text")
    tr, te = int(S.runs["fp32"][0][5]), int(S.runs["fp32"][0][4])
    A.ok(tr + te == rows_n, "lm: training and held-out rows do not add up to the text's rows")
    m = A.take1("A next-character model on a text every Debian system ships (`{W}`, the GPL version "
                "3 from base-files): letters lower-cased and whitespace runs made one space, {I} "
                "distinct characters; each of its {I} positions after the first {I} is a row, the "
                "one-hot codes of the {I} characters before it (a linear layer on them is an "
                "embedding) and the character to predict ({I} training and {I} held-out rows per "
                "split).  The model: {I} linear layers of width {I} with ReLU, a softmax over the "
                "characters, Adam at lr 3e-3, He initialisation.  Each step averages the "
                "cross-entropy over {I} tokens gathered by gradient accumulation as PyTorch does "
                "it ({I} micro-batches of {I}, each one's mean loss divided by {I}), so every "
                "per-token gradient carries the factor 1/{I}; {I} seeds, {I} to {I}.",
                "lm intro", start=s0, end=s1)
    if m:
        A.word(m.group(1), text, "lm text")
        vals = (classes, rows_n, ctx, ctx, tr, te, 3, 64, tokens, micro, tokens // micro, micro,
                tokens, n, seeds[0], seeds[0] + n - 1)
        for g, v in enumerate(vals, 2):
            A.num(m.group(g), v, "lm intro %d" % g)
        p = S.curves.header["params"]
        A.ok("depth=3 width=64" in p and "optimizer=adam lr=0.003" in p and
             "batch=%d" % tokens in p and "micro_batches=%d" % micro in p and
             "context=%d" % ctx in p, "lm: the parameters differ from the intro")
    check_policy_table(A, [S], s0, s1, "lm", "What each policy does:")
    check_rule(A, cs, md, me, n, s0, s1, "lm")
    check_table(A, S, None, bykey, s0, s1)
    # block 0: per run and layer; the layers add up to the run's totals
    b0 = Fl.blocks[0]
    per = {}
    for r in b0:
        per.setdefault((r[0], r[1]), []).append([int(x) for x in r[2:]])
    for p in S.pols:
        for r in S.runs[p]:
            ls = per[(p, r[2])]
            A.ok([sum(x[i] for x in ls) for i in (1, 2, 4)] == [int(r[15]), int(r[16]), int(r[17])],
                 "lm flush data: layers of %s seed %s do not add up to the run's totals" % (p, r[2]))

    def flush(p):
        lv = [0, 0, 0]
        fl = [0, 0, 0]
        for (q, _), ls in per.items():
            if q != p:
                continue
            for x in ls:
                lv[x[0]] += x[1] - x[2] - x[3]
                fl[x[0]] += x[4]
        return lv, fl
    lv, fl = flush("fp16")
    lvg, flg = flush("fp16-torch")
    pc = lambda a, b: 100.0 * a / b if b else 0.0
    f16all = pc(sum(fl), sum(lv))
    m = A.take1("Measured: without loss scaling the fp16 runs flush {N}% of their nonzero activation "
                "gradients to zero (all seeds, every step): {N}%, {N}% and {N}% in the outputs of "
                "layers 1, 2 and 3 (layer 3's are the logits' gradients (p - onehot)/{I}, smallest "
                "for the characters the model rules out); with GradScaler {N}%.  By the rule, {S}.",
                "lm measured", start=s0, end=s1)
    if m:
        vals = [f16all, pc(fl[0], lv[0]), pc(fl[1], lv[1]), pc(fl[2], lv[2]), tokens,
                pc(sum(flg), sum(lvg))]
        for g, v in enumerate(vals, 1):
            A.num(m.group(g), v, "lm measured %d" % g)
        A.word(m.group(7), verdict_groups(S, bykey), "lm verdicts")
    A.take1("What a mean over more tokens per step would flush: the binary32 runs' nonzero "
            "activation gradients times 2^-k (a mean over %d·2^k tokens), rounded into binary16 "
            "without scaling (all seeds, every step):\n\n| k | tokens per step | layer 1 | layer 2 | "
            "layer 3 (logits) | all |" % tokens, "lm what-if header", start=s0, end=s1)
    b1 = [[float(x) for x in r] for r in Fl.blocks[1]]
    ks = sorted({int(r[0]) for r in b1})
    allv, half_k = {}, None
    for k in ks:
        ls = sorted((r for r in b1 if int(r[0]) == k), key=lambda r: r[2])
        A.ok(all(r[1] == tokens * 2 ** k for r in ls), "lm what-if: tokens of k = %d" % k)
        f = [pc(r[4], r[3]) for r in ls]
        allv[k] = pc(sum(r[4] for r in ls), sum(r[3] for r in ls))
        if half_k is None and allv[k] > 50.0:
            half_k = k
        m = A.take1("| %d | %d | {N}%% | {N}%% | {N}%% | {N}%% |" % (k, tokens * 2 ** k),
                    "lm what-if k = %d" % k, start=s0, end=s1)
        if m:
            for g, v in enumerate(f + [allv[k]], 1):
                A.num(m.group(g), v, "lm what-if k = %d" % k)
    # the what-if at k = 0 is the binary32 runs' own gradients at scale 1:
    # their flushed counts must be those the fp32 runs' range statistics give
    lv0, fl0 = flush("fp32")
    A.ok([int(r[3]) for r in b1 if r[0] == 0] == lv0 and [int(r[4]) for r in b1 if r[0] == 0] == fl0,
         "lm what-if at k = 0 differs from the binary32 runs' own range statistics")
    # flushing can only grow with k (a smaller value flushes whenever a larger one does)
    A.ok(all(allv[a] <= allv[b] for a, b in zip(ks, ks[1:])), "lm what-if: not monotone in k")
    c16 = bykey["lm:" + S.groups()["fp16"]]
    if f16all > 50.0:
        m = take_cmp(A, "Micikevicius et al. (2018) found that without loss scaling fp16 flushes "
                     "most of the nonzero activation gradients of their SSD network; here it "
                     "flushes {N}%: that reproduces.  Test accuracy of fp16 without scaling against "
                     "binary32: {V}.", "lm paper claim", start=s0, end=s1)
        if m:
            A.num(m.group(1), f16all, "lm flushed")
            check_cmp_text(A, m.group(2), c16, "lm fp16")
    elif half_k is not None:
        m = take_cmp(A, "Micikevicius et al. (2018) found that without loss scaling fp16 flushes "
                     "most of the nonzero activation gradients of their SSD network; at {I} tokens "
                     "per step this model's fp16 runs flush {N}%: that does not reproduce here.  "
                     "Test accuracy of fp16 without scaling against binary32: {V}.  In the binary32 "
                     "runs' what-if, more than half would flush from a mean over {I} tokens per "
                     "step (k = {I}) on; experiment 6's *tiny* setting (loss weight 2^-16 over "
                     "batches of {I}) gives every per-token gradient the factor 2^-22 of a mean "
                     "over 2^22 = {I} tokens: it tests what that does to training.",
                     "lm paper claim", start=s0, end=s1)
        if m:
            A.num(m.group(1), tokens, "lm tokens")
            A.num(m.group(2), f16all, "lm flushed")
            check_cmp_text(A, m.group(3), c16, "lm fp16")
            A.num(m.group(4), tokens * 2 ** half_k, "lm half tokens")
            A.num(m.group(5), half_k, "lm half k")
            A.num(m.group(6), 64, "tiny batch")
            A.num(m.group(7), 2 ** 22, "2^22")
            A.ok(2 ** -16 / 64 == 2 ** -22, "tiny: W / 64")
    else:
        m = take_cmp(A, "Micikevicius et al. (2018) found that without loss scaling fp16 flushes "
                     "most of the nonzero activation gradients of their SSD network; at {I} tokens "
                     "per step this model's fp16 runs flush {N}%, and even a mean over {I} tokens "
                     "would flush at most {N}%: that does not reproduce here.  Test accuracy of "
                     "fp16 without scaling against binary32: {V}.", "lm paper claim",
                     start=s0, end=s1)
        if m:
            A.num(m.group(1), tokens, "lm tokens")
            A.num(m.group(2), f16all, "lm flushed")
            A.num(m.group(3), tokens * 2 ** ks[-1], "lm largest tokens")
            A.num(m.group(4), allv[ks[-1]], "lm largest flushed")
            check_cmp_text(A, m.group(5), c16, "lm fp16")
    m = check_pset_caption(A, S, bykey, "training_lm", "The character language model, {I} seeds.",
                           "Bottom right: the loss scale per step (first seed), skipped steps "
                           "marked ×.", s0, s1)
    if m:
        A.num(m.group(1), n, "lm caption seeds")
    A.take1("*Figure trainlm_flush*", "figure trainlm_flush", start=s0, end=s1)
    m = A.take1("Activation gradients flushed to zero by binary16 without loss scaling, per layer, "
                "against the tokens a step averages over: lines, the binary32 runs' gradients times "
                "2^-k ({I}·2^k tokens); crosses, what the fp16 runs without scaling flushed at {I} "
                "tokens.  Dashed: {N}% of all nonzero activation gradients flushed by the fp16 runs.",
                "trainlm_flush caption", start=s0, end=s1)
    if m:
        A.num(m.group(1), tokens, "lm tokens")
        A.num(m.group(2), tokens, "lm tokens")
        A.num(m.group(3), f16all, "lm flushed")
    return {"lm": S}


# ---- 7. scale granularity ------------------------------------------------------

def f32(x):
    """x rounded to binary32 (nearest even), by struct; +-inf on overflow."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.inf if x > 0 else -math.inf


FLT_MAX = struct.unpack("<f", bytes.fromhex("ffff7f7f"))[0]
KINDS = ("wgrad", "agrad", "act")


def te_delayed(amaxes, fp8_max, length=1024):
    """Transformer Engine's delayed scaling (fused kernel, algo 'max', margin
    0) from its description: the scale used at each step, given each step's
    amax.  Returns one scale per step (the one before that step's update)."""
    hist = [0.0] * length
    scale = 1.0
    out = []
    for a in amaxes:
        out.append(scale)
        hist[0] = a
        if a != 0:
            m = max(hist)
            hist = hist[1:] + [a]
            hist[0] = 0.0
            if m > 0 and math.isfinite(m):
                s = f32(fp8_max / m)
                scale = FLT_MAX if math.isinf(s) else s
    return out


def check_scaling(A, d, span):
    s0, s1 = span
    T = Dat(os.path.join(d, "scaling_tensors.dat"))
    St = Dat(os.path.join(d, "scaling_steps.dat"))
    G = Dat(os.path.join(d, "scaling.dat"))
    schemes = T.comment("# schemes: ").split()
    # block 0: the schemes, with delayed scaling's step 0 as rows of their own
    # after del-e5m2
    want_ids = []
    for sc in schemes:
        want_ids.append(sc)
        if sc == "del-e5m2":
            want_ids += ["del-e4m3-step0", "del-e5m2-step0"]
    A.ok(want_ids == [r[1] for r in G.blocks[0]], "scaling.dat: schemes differ from the tensors file")
    A.ok([int(r[0]) for r in G.blocks[0]] == list(range(len(want_ids))), "scaling.dat: row index")
    # ---- the per-tensor rows
    rows = []
    for r in T.blocks[0]:
        rows.append({"step": int(r[0]), "layer": int(r[1]), "kind": r[2], "sch": r[3],
                     "scale": f32(float(r[4])), "n": int(r[5]), "nz": int(r[6]), "uf": int(r[7]),
                     "sub": int(r[8]), "sat": int(r[9]), "reln": int(r[10]),
                     "relsum": float(r[11]), "err2": float(r[12]), "x2": float(r[13])})
    steps = sorted({r["step"] for r in rows})
    layers = sorted({r["layer"] for r in rows})
    NL = len(layers)
    every = int(T.param("watched_every"))
    A.ok(steps == list(range(0, steps[-1] + 1, every)) and len(steps) == int(T.param("watched_steps")),
         "scaling: watched steps are not every %d-th" % every)
    for r in rows:
        A.ok(r["uf"] + r["sat"] <= r["nz"] <= r["n"] and r["reln"] <= r["nz"],
             "scaling_tensors.dat: counts of %s %s L%d step %d" % (r["sch"], r["kind"], r["layer"], r["step"]))
    # every tensor measured under every scheme (loss scaling: gradients only)
    for st in steps:
        for k in KINDS:
            for l in layers:
                have = [r["sch"] for r in rows if r["step"] == st and r["kind"] == k and r["layer"] == l]
                want = [s for s in schemes if not (k == "act" and s.startswith("ls-"))]
                A.ok(have == want, "scaling: schemes of %s L%d step %d" % (k, l, st))
    # the amaxes of every step, and GradScaler's S
    # %.9g: every binary32 value reads back exactly once rounded to binary32
    srows = [[f32(float(x)) for x in r] for r in St.blocks[0]]
    nsteps = len(srows)
    A.ok([int(r[0]) for r in srows] == list(range(nsteps)), "scaling_steps.dat: steps")
    acol = {(k, l): 2 + i * NL + l for i, k in enumerate(KINDS) for l in layers}
    Sof = {int(r[0]): r[1] for r in srows}
    amax = {(k, l): [r[acol[(k, l)]] for r in srows] for k in KINDS for l in layers}
    # the scales each per-tensor scheme used, recomputed from their recipes
    dels = {(k, l, fmt): te_delayed(amax[(k, l)], 448.0 if fmt == "e4m3" else 57344.0)
            for k in KINDS for l in layers for fmt in ("e4m3", "e5m2")}
    nscale = 0
    for r in rows:
        s, k, l, t = r["sch"], r["kind"], r["layer"], r["step"]
        a = amax[(k, l)][t]
        if s in ("fp16", "e5m2", "e4m3"):
            want = 1.0
        elif s.startswith("ls-"):
            want = Sof[t]
        elif s.startswith("cur-"):
            mx = 448.0 if s.endswith("e4m3") else 57344.0
            want = 1.0 if a == 0 else (FLT_MAX if math.isinf(f32(mx / a)) else f32(mx / a))
        elif s.startswith("del-"):
            want = dels[(k, l, s[4:])][t]
        else:
            want = 0.0
        nscale += 1
        A.ok(r["scale"] == want, "scaling: %s %s L%d step %d used scale %r, the recipe gives %r"
             % (s, k, l, t, r["scale"], want))
    A.ok(nscale == len(rows) > 0, "scaling: scales checked")
    # GradScaler's scales are powers of two
    A.ok(all(v > 0 and math.frexp(v)[0] == 0.5 for v in Sof.values()), "scaling: S not a power of two")
    # ---- totals per scheme and kind
    def agg(sel):
        a = {"nz": 0, "uf": 0, "sat": 0, "reln": 0, "relsum": 0.0, "err2": 0.0, "x2": 0.0, "n": 0}
        for r in rows:
            if sel(r):
                for key in a:
                    a[key] += r[key]
        return a

    def P(a, key):
        return 100.0 * a[key] / a["nz"] if a["nz"] else 0.0

    def E(a):
        return math.sqrt(a["err2"] / a["x2"]) if a["x2"] > 0 else 0.0

    # delayed scaling's totals: the steps after step 0 (its cold start apart)
    tot = {(s, k): agg(lambda r, s=s, k=k: r["sch"] == s and r["kind"] == k and
                       not (s.startswith("del-") and r["step"] == 0))
           for s in schemes for k in KINDS}
    for f in ("e4m3", "e5m2"):
        for k in KINDS:
            tot[("del-%s-step0" % f, k)] = agg(lambda r, f=f, k=k: r["sch"] == "del-" + f and
                                              r["kind"] == k and r["step"] == 0)
    lay = {(s, k, l): agg(lambda r, s=s, k=k, l=l: r["sch"] == s and r["kind"] == k and r["layer"] == l)
           for s in ("cur-e4m3", "mxfp8-e4m3-rceil", "cur-e5m2", "mxfp8-e5m2") for k in KINDS for l in layers}
    U = lambda s, k: P(tot[(s, k)], "uf")
    SA = lambda s, k: P(tot[(s, k)], "sat")
    for r in G.blocks[0]:
        s = r[1]
        for i, k in enumerate(KINDS):
            a = tot[(s, k)]
            v = [float(x) for x in r[2 + 4 * i: 6 + 4 * i]]
            if a["nz"] == 0 and s.startswith("ls-"):
                A.ok(all(x != x for x in v), "scaling.dat: %s %s should be nan" % (s, k))
                continue
            A.ok(abs(v[0] - P(a, "uf")) < 1e-5 and abs(v[1] - P(a, "sat")) < 1e-5 and
                 abs(v[2] - (a["relsum"] / a["reln"] if a["reln"] else 0)) <= 1e-5 * abs(v[2]) + 1e-12 and
                 abs(v[3] - E(a)) <= 1e-5 * abs(v[3]) + 1e-12,
                 "scaling.dat block 0: %s %s disagrees with the tensors" % (s, k))
    # ---- the value histograms: counts, and the underflow they bound
    h1 = {int(r[0]): [int(x) for x in r[1:]] for r in G.blocks[1]}
    for i, k in enumerate(KINDS):
        A.ok(sum(v[i] for v in h1.values()) == tot[("e4m3", k)]["nz"],
             "scaling.dat block 1: %s histogram total" % k)
        # casts without scaling: |x| <= 2^-10 (E4M3), 2^-17 (E5M2), 2^-25
        # (binary16) flushes; below the binade of that edge every value does
        for s, edge in (("e4m3", -10), ("e5m2", -17), ("fp16", -25)):
            lo = sum(v[i] for b, v in h1.items() if b < edge)
            hi = lo + h1[edge][i]
            A.ok(lo <= tot[(s, k)]["uf"] <= hi, "scaling: %s cast flushes %d %s values, the "
                 "histogram allows %d..%d" % (s, tot[(s, k)]["uf"], k, lo, hi))
    hten = {int(r[0]): [int(x) for x in r[1:]] for r in G.blocks[2]}
    hblk = {int(r[0]): [int(x) for x in r[1:]] for r in G.blocks[3]}
    hcol = {(k, l): i * NL + l for i, k in enumerate(KINDS) for l in layers}

    def cnt(h, k, l, b):
        return sum(v[hcol[(k, l)]] for bb, v in h.items() if bb <= b)

    for k in KINDS:
        for l in layers:
            nz = lay[("cur-e4m3", k, l)]["nz"]
            A.ok(cnt(hten, k, l, 0) == nz and cnt(hblk, k, l, 0) == nz,
                 "scaling: value histograms of %s L%d do not count its nonzero values" % (k, l))
            # per tensor, E4M3: flushed iff |x| <= 2^-10 / (448 / amax) =
            # 2^-18.8 amax; E5M2: 2^-17 / (57344 / amax) = 2^-32.8 amax
            for s, h, lo_b, hi_b in (("cur-e4m3", hten, -20, -19), ("cur-e5m2", hten, -34, -33),
                                     # MX: the block scale 2^e sits within a factor 2 of
                                     # what the block's amax needs
                                     ("mxfp8-e4m3-rceil", hblk, -20, -18),
                                     ("mxfp8-e5m2", hblk, -34, -32)):
                uf = lay[(s, k, l)]["uf"]
                A.ok(cnt(h, k, l, lo_b) <= uf <= cnt(h, k, l, hi_b),
                     "scaling: %s flushes %d of %s L%d, its magnitudes allow %d..%d"
                     % (s, uf, k, l, cnt(h, k, l, lo_b), cnt(h, k, l, hi_b)))
    below = lambda h, k, ls: (100.0 * sum(cnt(h, k, l, -20) for l in ls) /
                              max(1, sum(cnt(h, k, l, 0) for l in ls)))
    UL = lambda s, k, l: P(lay[(s, k, l)], "uf")
    for r in G.blocks[5]:
        k, l = r[2], int(r[1])
        v = [float(x) for x in r[3:]]
        want = [UL("cur-e4m3", k, l), UL("mxfp8-e4m3-rceil", k, l), UL("cur-e5m2", k, l),
                UL("mxfp8-e5m2", k, l), below(hten, k, [l]), below(hblk, k, [l])]
        A.ok(all(abs(a - b) < 1e-5 for a, b in zip(v, want)), "scaling.dat block 5: %s L%d" % (k, l))

    # ---- the report: setting and table
    params = re.match(r"quick=\d (.*?) watched_every", T.header["params"]).group(1)
    nv = {k: sum(r["n"] for r in rows if r["kind"] == k and r["sch"] == "e4m3") for k in KINDS}
    Ss = [Sof[t] for t in steps]
    e0, e1 = math.frexp(min(Ss))[1] - 1, math.frexp(max(Ss))[1] - 1
    srange = ("S = 2^%d at every watched step" % e0 if e0 == e1 else
              "S = 2^%d to 2^%d at the watched steps" % (e0, e1))
    m = A.take1("Setting: {S} (the *deep* setting; the first seed's binary32 run is the run of "
                "section 3).  Measured: that run's weight gradients, activation gradients (with "
                "respect to each layer's output, as in section 3) and activations (each layer's "
                "input), every {I} steps ({I} steps: {I}, {I} and {I} values), and at every step "
                "each tensor's largest magnitude (amax).  Each watched tensor is quantized and "
                "dequantized under each scheme of the table: a cast without scaling (overflow to "
                "Inf or NaN, as a PyTorch cast does); loss scaling, for gradients only, by the "
                "scale S that GradScaler used at that step in the first seed's fp16-torch-i50 run "
                "(same initialisation and batches; {S}); Transformer Engine's per-tensor FP8 "
                "scaling, current (FP8_MAX / the tensor's amax) and delayed (amax history 1024, "
                "`max`, margin 0: the scale of step t comes from the amaxes of the steps before "
                "t), both saturating; OCP MX with blocks of 32 along each tensor's last axis "
                "(scale rule floor, the specification's, and rceil, the one the mxfp8 policy "
                "uses; a row of 10 values is one block, padded with zeros) and NVFP4 (blocks of "
                "16, E4M3 block scales, one FP32 tensor scale).", "scaling setting", start=s0, end=s1)
    if m:
        A.word(m.group(1), params, "scaling parameters")
        gh = os.path.join(d, "gradhist.dat")
        if os.path.exists(gh):
            # "the run of section 3": the same setting, seed and data seed
            gp = re.match(r"quick=\d (.*?) steps=\d+ \(every step\)", Dat(gh).header["params"]).group(1)
            A.word(params, gp, "scaling: not the run of section 3")
        A.ok("depth=4" in params and "init_gain=0.25" in params and "batch=256" in params,
             "scaling: not the deep setting")
        A.num(m.group(2), every, "scaling every")
        A.num(m.group(3), len(steps), "scaling watched steps")
        for g, k in ((4, "wgrad"), (5, "agrad"), (6, "act")):
            A.num(m.group(g), nv[k], "scaling %s values" % k)
        A.word(m.group(7), srange, "scaling S range")
        last = [r for r in G.blocks[4] if r[0] == "agrad"][-1]
        A.ok(int(last[3]) == 10, "scaling: the last layer's rows are not 10 values")
    A.take1("| scheme | w-grad underflow | w-grad saturated | w-grad error | a-grad underflow | "
            "a-grad saturated | a-grad error | act underflow | act saturated | act error |",
            "scaling table header", start=s0, end=s1)
    labels = {"fp16": "binary16 cast", "e5m2": "E5M2 cast", "e4m3": "E4M3 cast",
              "ls-fp16": "binary16, loss scale S", "ls-e5m2": "E5M2, loss scale S",
              "cur-e4m3": "per-tensor current E4M3", "cur-e5m2": "per-tensor current E5M2",
              "del-e4m3": "per-tensor delayed E4M3, after step 0",
              "del-e5m2": "per-tensor delayed E5M2, after step 0",
              "del-e4m3-step0": "per-tensor delayed E4M3, step 0 (scale 1)",
              "del-e5m2-step0": "per-tensor delayed E5M2, step 0 (scale 1)",
              "mxfp8-e4m3": "MXFP8 E4M3", "mxfp8-e4m3-rceil": "MXFP8 E4M3, rceil",
              "mxfp8-e5m2": "MXFP8 E5M2", "mxfp6-e2m3": "MXFP6 E2M3", "mxfp6-e3m2": "MXFP6 E3M2",
              "mxfp4": "MXFP4 E2M1", "nvfp4": "NVFP4"}
    A.ok(sorted(labels) == sorted(want_ids), "scaling: scheme list changed")
    for s in want_ids:
        cells = " | ".join("{C}" for _ in range(9))
        m = A.take1("| %s | %s |" % (labels[s], cells), "scaling row " + s, start=s0, end=s1)
        if not m:
            continue
        for i, k in enumerate(KINDS):
            a = tot[(s, k)]
            c = [m.group(1 + 3 * i + j) for j in range(3)]
            if a["nz"] == 0 and s.startswith("ls-") and k == "act":
                A.ok(c == ["–", "–", "–"], "scaling row %s act: expected –" % s)
                continue
            for j, (v, what) in enumerate(((P(a, "uf"), "underflow"), (P(a, "sat"), "saturated"))):
                mm = re.fullmatch(r"(%s)%%" % NUM, c[j])
                if A.ok(mm is not None, "scaling row %s %s cell '%s'" % (s, k, c[j])):
                    A.num(mm.group(1), v, "scaling %s %s %s" % (s, k, what))
            A.num(c[2], E(a), "scaling %s %s error" % (s, k), rel=5e-3)
    A.take1("*Underflow*: nonzero values dequantized to zero; *saturated*: values clamped at the "
            "largest element (for a cast: sent to Inf or NaN); both in % of the nonzero values, "
            "over the watched steps and layers (delayed scaling: its step 0, where it has no amax "
            "yet, apart from the later steps).  *Error*: sqrt(Σ(deq − x)² / Σx²) over the values "
            "whose dequantized value is finite.  –: loss scaling is not applied to activations.",
            "scaling table footnote", start=s0, end=s1)
    # ---- what the numbers say
    W, Ak, X = "wgrad", "agrad", "act"
    m = A.take1("Without scaling, a cast to E4M3 flushes {N}% of the nonzero weight gradients and "
                "{N}% of the nonzero activation gradients to zero, a cast to E5M2 {N}% and {N}%, "
                "and one to binary16 {N}% and {N}%.", "scaling casts", start=s0, end=s1)
    if m:
        for g, v in enumerate((U("e4m3", W), U("e4m3", Ak), U("e5m2", W), U("e5m2", Ak),
                               U("fp16", W), U("fp16", Ak)), 1):
            A.num(m.group(g), v, "scaling casts")
    # the lab's one flush definition: every step of each binary32 run
    Sd = Dat(os.path.join(d, "scaling_train_seeds.dat"))
    fl7 = {}
    for r in Sd.blocks[2]:
        fl7[(int(r[0]), r[1], int(r[2]))] = (int(r[3]), int(r[4]))
    fseeds = sorted({k[0] for k in fl7})
    share7 = lambda seed, kind: (100.0 * sum(fl7[(seed, kind, l)][1] for l in layers) /
                                 sum(fl7[(seed, kind, l)][0] for l in layers))
    m = A.take1("The binary16 figures count the {I} watched steps (one in {I}, step 0 included); by "
                "the lab's one flush definition (section 3: every step, every layer) binary16 "
                "flushes {N}% and {N}% of this run's nonzero weight and activation gradients, and "
                "over seeds {I} to {I} {N} ± {N}% and {N} ± {N}%.", "scaling one definition",
                start=s0, end=s1)
    if m:
        A.num(m.group(1), len(steps), "watched steps")
        A.num(m.group(2), every, "watched every")
        A.num(m.group(3), share7(fseeds[0], W), "flush w seed 1")
        A.num(m.group(4), share7(fseeds[0], Ak), "flush a seed 1")
        A.num(m.group(5), fseeds[0], "first seed")
        A.num(m.group(6), fseeds[-1], "last seed")
        for g, v in zip((7, 8, 9, 10), list(mean_sd([share7(x, W) for x in fseeds])) +
                        list(mean_sd([share7(x, Ak) for x in fseeds]))):
            A.num(m.group(g), v, "flush over seeds")
        # the watched steps' binary16 cast and the every-step definition
        # count the same values when every step is watched
        if every == 1:
            A.ok(abs(U("fp16", Ak) - share7(fseeds[0], Ak)) < 1e-9, "scaling: one definition")
    # one definition across experiments: the same runs give the same counts
    # in section 3 (gradhist_seeds.dat, scale s1) and here
    ghs = os.path.join(d, "gradhist_seeds.dat")
    if os.path.exists(ghs):
        G3 = Dat(ghs)
        c3 = {(int(r[0]), r[2], int(r[3])): (int(r[4]), int(r[5])) for r in G3.blocks[0]
              if r[1] == "s1"}
        A.ok(c3 == fl7, "scaling: the flush counts differ from section 3's for the same runs")
    lss = [SA("ls-fp16", W), SA("ls-fp16", Ak), SA("ls-e5m2", W), SA("ls-e5m2", Ak)]
    m = A.take1("Multiplied by GradScaler's S first, binary16 flushes {N}% and {N}%, E5M2 {N}% "
                "and {N}%; {S}.  Per-tensor", "scaling loss scaling", start=s0, end=s1)
    if m:
        for g, v in enumerate((U("ls-fp16", W), U("ls-fp16", Ak), U("ls-e5m2", W),
                               U("ls-e5m2", Ak)), 1):
            A.num(m.group(g), v, "scaling loss scaling")
        if sum(lss) == 0:
            A.word(m.group(5), "no value overflows at these scales", "scaling loss-scale overflow")
        else:
            mm = re.fullmatch(pat("binary16 overflows {N}% and {N}%, E5M2 {N}% and {N}%"), m.group(5))
            if A.ok(mm is not None, "scaling loss-scale overflow: " + m.group(5)):
                for g, v in enumerate(lss, 1):
                    A.num(mm.group(g), v, "scaling loss-scale overflow")
    cs = [SA("cur-e4m3", W), SA("cur-e4m3", Ak), SA("cur-e5m2", W), SA("cur-e5m2", Ak)]
    cu = [U("cur-e4m3", W), U("cur-e4m3", Ak), U("cur-e5m2", W), U("cur-e5m2", Ak)]
    m = A.take1("Per-tensor current scaling flushes {N}% and {N}% with E4M3 and {N}% and {N}% with "
                "E5M2, {S}.  Per block", "scaling current", start=s0, end=s1)
    if m:
        for g, v in enumerate(cu, 1):
            A.num(m.group(g), v, "scaling current")
        if sum(cs) == 0:
            A.word(m.group(5), "and saturates nothing (the scale maps each tensor's own amax to "
                   "the largest element)", "scaling current saturation")
        else:
            mm = re.fullmatch(pat("and saturates {N}% and {N}% (E4M3), {N}% and {N}% (E5M2)"),
                              m.group(5))
            if A.ok(mm is not None, "scaling current saturation: " + m.group(5)):
                for g, v in enumerate(cs, 1):
                    A.num(mm.group(g), v, "scaling current saturation")
    def more_fewer(a, b):
        if all(x > y for x, y in zip(a, b)):
            return "more"
        if all(x < y for x, y in zip(a, b)):
            return "fewer"
        return "neither consistently more nor fewer"

    mr = [U("mxfp8-e4m3-rceil", W), U("mxfp8-e4m3-rceil", Ak)]
    rs = [SA("mxfp8-e4m3-rceil", W), SA("mxfp8-e4m3-rceil", Ak)]
    m = A.take1("Per block, MXFP8 E4M3 flushes {N}% and {N}% (rule floor) and {N}% and {N}% "
                "(rceil), {S} than per-tensor current E4M3; the rule floor saturates {N}% and {N}% "
                "(divided by its power-of-two scale, a block's largest value lies in [256, 512), "
                "and above 448 it is clamped), rceil {S}.  ", "scaling mx", start=s0, end=s1)
    if m:
        for g, v in enumerate((U("mxfp8-e4m3", W), U("mxfp8-e4m3", Ak), mr[0], mr[1]), 1):
            A.num(m.group(g), v, "scaling mx")
        A.word(m.group(5), more_fewer(mr, cu[:2]), "scaling mx against per tensor")
        A.num(m.group(6), SA("mxfp8-e4m3", W), "scaling mx floor saturation")
        A.num(m.group(7), SA("mxfp8-e4m3", Ak), "scaling mx floor saturation")
        if sum(rs) == 0:
            A.word(m.group(8), "none", "scaling rceil saturation")
        else:
            mm = re.fullmatch(pat("{N}% and {N}%"), m.group(8))
            if A.ok(mm is not None, "scaling rceil saturation: " + m.group(8)):
                A.num(mm.group(1), rs[0], "rceil saturation")
                A.num(mm.group(2), rs[1], "rceil saturation")
        # floor: X = 2^(floor(log2 amax) - 8), so amax / X is in [2^8, 2^9);
        # 448 = 1.75 * 2^8 is E4M3's largest
        A.ok(448 == 1.75 * 2 ** 8 and 256 == 2 ** 8 and 512 == 2 ** 9, "E4M3 max")
    scaled = [s for s in schemes if s not in ("fp16", "e5m2", "e4m3", "mxfp4", "nvfp4")]
    most = all(U(s, k) < U("mxfp4", k) and U(s, k) < U("nvfp4", k)
               for k in KINDS for s in scaled if tot[(s, k)]["nz"])
    errs = [E(tot[(s, k)]) for s in ("mxfp4", "nvfp4") for k in KINDS]
    # the claim, as the data has it: a sentence with the other claim fails to match
    m = A.take1(("Of the scaled schemes, the 4-bit ones flush the most:" if most else
                 "The 4-bit schemes flush:") + " MXFP4 {N}%, {N}% and {N}% of the weight "
                "gradients, activation gradients and activations, NVFP4 {N}%, {N}% and {N}%, "
                "with normwise errors of {N} to {N}.", "scaling 4-bit claim", start=s0, end=s1)
    if m:
        for g, v in enumerate([U("mxfp4", k) for k in KINDS] + [U("nvfp4", k) for k in KINDS], 1):
            A.num(m.group(g), v, "scaling 4-bit")
        A.num(m.group(7), min(errs), "scaling 4-bit error", rel=5e-3)
        A.num(m.group(8), max(errs), "scaling 4-bit error", rel=5e-3)
    # ---- delayed scaling: the cold start apart, and what sets its scale
    by = {(r["step"], r["kind"], r["layer"], r["sch"]): r for r in rows}
    later = steps[1:]
    A.ok(steps[0] == 0 and all(by[(0, k, l, "del-" + f)]["scale"] == 1.0 for k in KINDS
                               for l in layers for f in ("e4m3", "e5m2")),
         "scaling: delayed scale at step 0 is not 1")
    t0 = lambda f, k: P(tot[("del-%s-step0" % f, k)], "uf")
    uf_d = lambda ts, f, k: sum(by[(t, k, l, "del-" + f)]["uf"] for t in ts for l in layers)
    uf_c = lambda ts, f, k: sum(by[(t, k, l, "cur-" + f)]["uf"] for t in ts for l in layers)
    nz_d = lambda ts, f, k: sum(by[(t, k, l, "del-" + f)]["nz"] for t in ts for l in layers)
    all_uf = sum(uf_d(steps, "e4m3", k) for k in (W, Ak))
    part0 = 100.0 * sum(uf_d([0], "e4m3", k) for k in (W, Ak)) / all_uf if all_uf else 0.0
    m = A.take1("**Delayed scaling: the cold start apart.**  At step 0 delayed scaling has recorded "
                "no amax and quantizes with scale 1: E4M3 flushes {N}% and {N}% of that step's "
                "nonzero weight and activation gradients, E5M2 {N}% and {N}%; that one step holds "
                "{N}% of the gradient values delayed E4M3 flushes over the {I} watched steps.  ",
                "delayed cold start", start=s0, end=s1)
    if m:
        for g, v in enumerate((t0("e4m3", W), t0("e4m3", Ak), t0("e5m2", W), t0("e5m2", Ak),
                               part0, len(steps)), 1):
            A.num(m.group(g), v, "delayed cold start")
        # the support: the first recorded amax comes after step 0 (te_delayed
        # starts at scale 1), so step 0 is quantized with scale 1
        A.ok(te_delayed([0.5, 0.25], 448.0)[0] == 1.0, "delayed scaling starts at scale 1")
    du = [100.0 * uf_d(later, f, k) / nz_d(later, f, k) for f in ("e4m3", "e5m2") for k in (W, Ak)]
    cu = [100.0 * uf_c(later, f, k) / nz_d(later, f, k) for f in ("e4m3", "e5m2") for k in (W, Ak)]
    ratios = [by[(t, k, l, "del-e4m3")]["scale"] / by[(t, k, l, "cur-e4m3")]["scale"]
              for t in later for k in (W, Ak) for l in layers]
    nbelow = sum(1 for q in ratios if q < 1)
    med = statistics.median(ratios)
    hist = ("the history of 1024 steps is longer than this %d-step run" % nsteps
            if nsteps <= 1024 else "a history of 1024 steps")
    m = A.take1("Over the {I} watched steps after it, delayed scaling flushes {N}% and {N}% with "
                "E4M3 and {N}% and {N}% with E5M2, current scaling over the same steps {N}% and "
                "{N}%, {N}% and {N}% (delayed: {S}).  Delayed scaling's scale is the format's "
                "largest value over the largest amax recorded before the step (" + hist + "); "
                "with E4M3 it is below the current one in {I} of the {I} gradient tensors, median "
                "ratio {N} (the flush threshold {N} binade higher).  ", "delayed steady state",
                start=s0, end=s1)
    if m:
        A.num(m.group(1), len(later), "steps after 0")
        for g, v in enumerate(du + cu, 2):
            A.num(m.group(g), v, "delayed against current")
        A.word(m.group(10), more_fewer(du, cu), "scaling delayed against current")
        A.num(m.group(11), nbelow, "scaling delayed below")
        A.num(m.group(12), len(ratios), "scaling delayed tensors")
        A.num(m.group(13), med, "scaling delayed median ratio", rel=1e-6)
        A.num(m.group(14), -math.log2(med), "threshold shift")
    # the cause, re-derived: split the tensors by their ratio; for those
    # below 1/2 the step whose amax the history holds (from every step's
    # amax, scaling_steps.dat), and which tensors carry the excess
    cls = {"lo": [], "hi": []}
    for t in later:
        for k in (W, Ak):
            for l in layers:
                q = by[(t, k, l, "del-e4m3")]["scale"] / by[(t, k, l, "cur-e4m3")]["scale"]
                cls["lo" if q < 0.5 else "hi"].append((t, k, l))
                # the support of "a larger earlier amax": below 1 only then
                if q < 1:
                    A.ok(max(amax[(k, l)][:t]) > amax[(k, l)][t],
                         "scaling: delayed scale below current without a larger earlier amax")
    ex = lambda ts: sum(by[(t, k, l, "del-e4m3")]["uf"] - by[(t, k, l, "cur-e4m3")]["uf"]
                        for t, k, l in ts)
    pc = lambda ts, s_: (100.0 * sum(by[(t, k, l, s_)]["uf"] for t, k, l in ts) /
                         sum(by[(t, k, l, s_)]["nz"] for t, k, l in ts)) if ts else 0.0
    if not cls["lo"]:
        m = A.take1("No tensor's ratio is below 1/2: the {I} values delayed E4M3 flushes beyond "
                    "current scaling lie where a ratio between 1/2 and 1 moves the threshold.",
                    "delayed cause", start=s0, end=s1)
        if m:
            A.num(m.group(1), ex(cls["hi"]), "delayed excess")
    else:
        lo = cls["lo"]
        hs = []
        for t, k, l in lo:
            h = amax[(k, l)][:t]
            hs.append((h.index(max(h)), max(h)))
        m = A.take1("Of the {I} values delayed E4M3 flushes beyond current scaling, {I} lie in the "
                    "{I} tensors whose ratio is below 1/2 ({I} weight-gradient and {I} "
                    "activation-gradient tensors, at steps {I} to {I}), whose history's largest "
                    "amax was recorded at steps {I} to {I} (up to {N}): there delayed E4M3 flushes "
                    "{N}% against current scaling's {N}%.  The other {I} lie in the other {I} "
                    "tensors (ratio 1/2 or more): {N}% against {N}%.", "delayed cause",
                    start=s0, end=s1)
        if m:
            want = [ex(lo) + ex(cls["hi"]), ex(lo), len(lo), sum(1 for x in lo if x[1] == W),
                    sum(1 for x in lo if x[1] == Ak), min(x[0] for x in lo), max(x[0] for x in lo),
                    min(h[0] for h in hs), max(h[0] for h in hs)]
            for g, v in enumerate(want, 1):
                A.num(m.group(g), v, "delayed cause")
            A.num(m.group(10), max(h[1] for h in hs), "delayed cause: largest amax", rel=5e-4)
            A.num(m.group(11), pc(lo, "del-e4m3"), "delayed cause")
            A.num(m.group(12), pc(lo, "cur-e4m3"), "delayed cause")
            A.num(m.group(13), ex(cls["hi"]), "delayed cause")
            A.num(m.group(14), len(cls["hi"]), "delayed cause")
            A.num(m.group(15), pc(cls["hi"], "del-e4m3"), "delayed cause")
            A.num(m.group(16), pc(cls["hi"], "cur-e4m3"), "delayed cause")
    A.take1("*Figure scaling*", "scaling figure", start=s0, end=s1)
    A.take1("Per scheme (rows) and tensor (panels: weight gradients, activation gradients and "
            "activations of the watched binary32 run): the values flushed to zero (dots, coloured "
            "by scheme family) and saturated (triangles, where any), in % of the nonzero values on "
            "a log axis with a column for 0, and the normwise error sqrt(Σ(deq − x)²/Σx²) per "
            "tensor (right).  Delayed scaling's step 0, the cold start with scale 1, is a row of "
            "its own (shaded).  Loss scaling is not applied to activations.", "scaling caption",
            start=s0, end=s1)

    # ---- where one scale per tensor is not enough
    A.take1("**Where one scale per tensor is not enough.**  Underflow per layer, and how far below "
            "the amax of its tensor or of its block of 32 each nonzero value lies:",
            "granularity intro", start=s0, end=s1)
    A.take1("| tensor | layer | per-tensor E4M3 | MXFP8 E4M3 (rceil) | per-tensor E5M2 | MXFP8 "
            "E5M2 | values > 2^19 below the tensor amax | values > 2^19 below the block amax |",
            "granularity header", start=s0, end=s1)
    kname = {"wgrad": "weight gradient", "agrad": "activation gradient", "act": "activation"}
    for k in KINDS:
        for l in layers:
            m = A.take1("| %s | %d | {N}%% | {N}%% | {N}%% | {N}%% | {N}%% | {N}%% |" % (kname[k], l),
                        "granularity row %s %d" % (k, l), start=s0, end=s1)
            if m:
                want = [UL("cur-e4m3", k, l), UL("mxfp8-e4m3-rceil", k, l), UL("cur-e5m2", k, l),
                        UL("mxfp8-e5m2", k, l), below(hten, k, [l]), below(hblk, k, [l])]
                for g, v in enumerate(want, 1):
                    A.num(m.group(g), v, "granularity %s %d" % (k, l))
    hid = layers[:-1]
    L1 = layers[-1]
    cvals = [UL("cur-e4m3", Ak, l) for l in hid]
    mvals = [UL("mxfp8-e4m3-rceil", Ak, l) for l in hid]
    ec = {"err2": sum(lay[("cur-e4m3", Ak, l)]["err2"] for l in hid),
          "x2": sum(lay[("cur-e4m3", Ak, l)]["x2"] for l in hid)}
    em = {"err2": sum(lay[("mxfp8-e4m3-rceil", Ak, l)]["err2"] for l in hid),
          "x2": sum(lay[("mxfp8-e4m3-rceil", Ak, l)]["x2"] for l in hid)}
    e1, e2 = E(ec), E(em)
    claim1 = (": one scale per block keeps what one scale per tensor flushes"
              if max(mvals) < min(cvals) else "")
    claim2 = (": the flushed values are too small to weigh in the sum of squares"
              if abs(e1 - e2) < 0.1 * max(e1, e2) else "")
    m = A.take1("In the hidden layers (0 to {I}), per-tensor current E4M3 flushes {N}% to {N}% of "
                "the nonzero activation gradients and MXFP8 E4M3 {N}% to {N}%.  Per-tensor E4M3 "
                "flushes every value below 2^-18.8 times the amax (half its smallest subnormal, "
                "2^-10, over its largest element, 448 = 2^8.8): {N}% of those values lie more than "
                "2^19 below their tensor's amax, {N}% more than 2^19 below the amax of their own "
                "block (a piece of one example's row)" + claim1 + ".  The normwise errors are {N} "
                "per tensor and {N} per block" + claim2 + ".", "granularity hidden claims",
                start=s0, end=s1)
    if m:
        A.num(m.group(1), hid[-1], "last hidden layer")
        A.num(m.group(2), min(cvals), "hidden per-tensor min")
        A.num(m.group(3), max(cvals), "hidden per-tensor max")
        A.num(m.group(4), min(mvals), "hidden mx min")
        A.num(m.group(5), max(mvals), "hidden mx max")
        A.num(m.group(6), below(hten, Ak, hid), "hidden below tensor")
        A.num(m.group(7), below(hblk, Ak, hid), "hidden below block")
        A.num(m.group(8), e1, "hidden error per tensor", rel=5e-3)
        A.num(m.group(9), e2, "hidden error per block", rel=5e-3)
        # the threshold: 2^-10 / 448 = 2^-18.807...
        A.num("18.8", -math.log2(2 ** -10 / 448), "E4M3 threshold")
        A.num("8.8", math.log2(448), "log2 448")
    c4, m4 = UL("cur-e4m3", Ak, L1), UL("mxfp8-e4m3-rceil", Ak, L1)
    c5, m5 = UL("cur-e5m2", Ak, L1), UL("mxfp8-e5m2", Ak, L1)
    how = ("has nothing to recover" if c4 == 0 else
           ("recovers part" if m4 > 0 else "recovers all") if m4 < c4 else "recovers nothing")
    tail = ": wider elements keep more of them (MXFP8 E5M2 flushes {N}%)" if m5 < m4 else ""
    m = A.take1("In the last layer's activation gradients (the logit gradients, one row of {I} "
                "values per example, padded to one block) a scale per block " + how + ": "
                "per-tensor E4M3 flushes {N}%, MXFP8 E4M3 {N}%; per-tensor E5M2 {N}%, MXFP8 E5M2 "
                "{N}%.  There {N}% of the nonzero values lie more than 2^19 below their own "
                "block's amax, beyond E4M3's reach under any block scale that keeps the block's "
                "largest value (448 down to half the smallest subnormal spans 2^18.8)" + tail + ".",
                "granularity last layer claims", start=s0, end=s1)
    if m:
        A.num(m.group(1), 10, "logit row")
        for g, v in enumerate((c4, m4, c5, m5, below(hblk, Ak, [L1])), 2):
            A.num(m.group(g), v, "last layer")
        if tail:
            A.num(m.group(7), m5, "last layer E5M2")
    A.take1("*Figure scaling_blocks*", "blocks figure", start=s0, end=s1)
    A.take1("Left: per layer, the activation gradients (top) and weight gradients (bottom) flushed "
            "to zero by per-tensor current scaling and by MXFP8 (rceil for E4M3), with E4M3 and "
            "with E5M2 elements (one dot per scheme, log axis with a column for 0, the number "
            "beside each dot).  Right: the share of the nonzero activation gradients below 2^x "
            "times the amax of their tensor (solid) and of their block of 32 (dashed), hidden "
            "layers (top) and the last layer (bottom), with the values whose floor(log2(|x| / "
            "amax)) is -40 or less as one bin (squares, ≤ -40); per-tensor E4M3 flushes left of "
            "the dashed grey line (x = -18.8), per-tensor E5M2 left of the dotted one (x = -32.8).",
            "blocks caption", start=s0, end=s1)
    A.ok(min(int(r[0]) for r in G.blocks[2]) == -40, "scaling.dat block 2: the last bin is not -40")
    A.num("32.8", -math.log2(2 ** -17 / 57344), "E5M2 threshold")

    # ---- training
    S = Setting(d, "scaling", curves="scaling_train.dat", seeds="scaling_train_seeds.dat")
    n = S.n
    A.ok(all(len(v) == n for v in S.runs.values()), "scaling training: seeds per policy")
    seeds = [int(r[2]) for r in S.runs["fp32"]]
    A.ok(all([int(r[2]) for r in S.runs[p]] == seeds for p in S.pols), "scaling training: same seeds")
    m = A.take1("**Training with FP8 and MX matrix products.**  Every policy with {I} seeds ({I} to "
                "{I}) in the *deep* setting, compared seed by seed by the lab's rule (section 6: a "
                "difference is called only when the 95% confidence interval of the mean per-seed "
                "difference excludes 0).  fp8-hybrid-delayed is Transformer Engine's DelayedScaling "
                "with HYBRID formats (E4M3 activations and weights, E5M2 output gradients; history "
                "1024, `max`); fp8-e4m3-current scales every tensor, output gradients included, by "
                "its own amax into E4M3; mxfp8 is MXFP8 E4M3 for every tensor, blocks of 32 along "
                "each product's reduction axis, scale rule rceil.  These three quantize the inputs "
                "of every matrix product and sum in binary32; everything else is binary32, without "
                "loss scaling.  fp16-torch-i50 is fp16 autocast with GradScaler (growth interval "
                "50).", "scaling training intro", start=s0, end=s1)
    if m:
        A.num(m.group(1), n, "seeds")
        A.num(m.group(2), seeds[0], "first seed")
        A.num(m.group(3), seeds[-1], "last seed")
        A.ok(seeds == list(range(seeds[0], seeds[0] + n)), "scaling training: seeds not consecutive")
    A.take1("| policy | final loss | test accuracy % (min–max) | vs fp32 | output gradients flushed "
            "| activations flushed | weights flushed | saturated |", "scaling training header",
            start=s0, end=s1)
    acc32 = S.acc("fp32")
    quant = {"fp8-hybrid-delayed", "fp8-e4m3-current", "mxfp8"}
    gfl = {}
    for p in S.pols:
        m = A.take1("| %s | {C} | {N} ± {N} ({N}–{N}) | {C} | {C} | {C} | {C} | {C} |" % p,
                    "scaling training row " + p, start=s0, end=s1)
        if not m:
            continue
        what = "scaling training " + p
        div = sum(1 for r in S.runs[p] if int(r[7]))
        if div:
            A.word(m.group(1), "diverged (%d of %d seeds)" % (div, n), what + " loss")
        else:
            mm = re.fullmatch(r"(%s) ± (%s)" % (NUM, NUM), m.group(1))
            if A.ok(mm is not None, what + " loss cell"):
                lm, ls = mean_sd(S.col(p, 6))
                A.num(mm.group(1), lm, what + " loss mean", rel=1e-7)
                A.num(mm.group(2), ls, what + " loss sd", rel=1e-6, slack=1e-9)
        acc = S.acc(p)
        am, asd = mean_sd(acc)
        for g, v in ((2, am), (3, asd), (4, min(acc)), (5, max(acc))):
            A.num(m.group(g), v, what + " accuracy")
        if p == "fp32":
            A.word(m.group(6), "-", what + " vs")
        else:
            check_cmp_str(A, m.group(6), acc, acc32, what + " vs fp32")
        # columns 10..18: act nz uf sat, weight nz uf sat, grad nz uf sat
        fr = lambda r, a, b: 100.0 * int(r[a]) / int(r[b]) if int(r[b]) else 0.0
        gfl[p] = [fr(r, 17, 16) for r in S.runs[p]]
        if p in quant:
            A.ok(all(int(r[16]) > 0 for r in S.runs[p]), what + ": no quantized gradients")
            want = [statistics.fmean(gfl[p]), statistics.fmean(fr(r, 11, 10) for r in S.runs[p]),
                    statistics.fmean(fr(r, 14, 13) for r in S.runs[p]),
                    statistics.fmean(100.0 * (int(r[12]) + int(r[15]) + int(r[18])) /
                                     (int(r[10]) + int(r[13]) + int(r[16])) for r in S.runs[p])]
            for g, v in zip((7, 8, 9, 10), want):
                mm = re.fullmatch(r"(%s)%%" % NUM, m.group(g))
                if A.ok(mm is not None, what + " quantizer cell " + m.group(g)):
                    A.num(mm.group(1), v, what + " quantizer")
        else:
            A.ok(all(int(x) == 0 for r in S.runs[p] for x in r[10:19]), what + ": counts without a quantizer")
            A.ok([m.group(g) for g in (7, 8, 9, 10)] == ["–"] * 4, what + ": quantizer cells")
    A.take1("*Final loss, test accuracy*: mean ± sample standard deviation over the {I} seeds; *vs "
            "fp32*: the mean per-seed difference (points) ± the half-width of its 95% interval.  "
            "*Flushed*, *saturated*: of the nonzero values entering the matrix products over the "
            "run (MX counts each of its two quantizations of a tensor), mean over the seeds; –: no "
            "quantizer.", "scaling training footnote", start=s0, end=s1)
    for r in S.seeds.blocks[1]:
        acc = S.acc(r[1])
        am, asd = mean_sd(acc)
        A.ok(int(r[2]) == n and abs(float(r[3]) - am) < 1e-5 and abs(float(r[4]) - asd) < 1e-5,
             "scaling_train_seeds.dat block 1 row %s disagrees with block 0" % r[1])
    # blocks 3 and 4 (what the figure draws): the paired differences and
    # their verdicts, recomputed from block 0
    acc32 = S.acc("fp32")
    want3 = [(p, d) for p in S.pols[1:] for d in (x - y for x, y in zip(S.acc(p), acc32))]
    got3 = [(r[1], float(r[3])) for r in S.seeds.blocks[3]]
    A.ok(len(got3) == len(want3) and all(g[0] == w[0] and abs(g[1] - w[1]) < 1e-5
                                         for g, w in zip(got3, want3)),
         "scaling_train_seeds.dat block 3: per-seed differences disagree with block 0")
    rows4 = {r[1]: r for r in S.seeds.blocks[4]}
    A.ok(sorted(rows4) == sorted(S.pols[1:]), "scaling_train_seeds.dat block 4: policies")
    for p in S.pols[1:]:
        if p not in rows4:
            continue
        w, mdiff, h = paired(S.acc(p), acc32)
        r = rows4[p]
        A.ok(abs(float(r[2]) - mdiff) < 1e-5 and abs(float(r[3]) - h) < 1e-4,
             "scaling_train_seeds.dat block 4 %s: mean difference or half-width" % p)
        A.word(r[4], w.replace(" ", "-"), "scaling_train_seeds.dat block 4 %s verdict" % p)
    curves = {p: [[float(x) for x in row] for row in S.curves.blocks[i]] for i, p in enumerate(S.pols)}
    steps_n = len(curves["fp32"])
    t0 = steps_n - (steps_n + 9) // 10
    late = {p: statistics.fmean(100.0 * row[7] for row in curves[p][t0:]) for p in S.pols}
    m = A.take1("By the rule, {S}.  Over the run, per-tensor E4M3 (fp8-e4m3-current) flushes {N} ± "
                "{N}% of the output-gradient values entering the products, MXFP8 {N} ± {N}%; "
                "fp8-e4m3-current's test accuracy against mxfp8's: {S}.  fp8-hybrid-delayed against "
                "fp16 with GradScaler: {S}.  In the last {I} steps fp8-e4m3-current flushes {N}% of "
                "the output-gradient values, mxfp8 {N}%, fp8-hybrid-delayed {N}% (mean over those "
                "steps and the seeds); fp8-hybrid-delayed's first step, quantized with scale 1 "
                "before any amax is recorded, flushes {N}%.", "scaling training summary",
                start=s0, end=s1)
    if m:
        order = [("identical", "identical to binary32 in every seed"),
                 ("not shown", "difference from binary32 not shown"),
                 ("lower", "lower than binary32"), ("higher", "higher than binary32")]
        parts = []
        for w, label in order:
            ps = [p for p in S.pols[1:] if paired(S.acc(p), acc32)[0] == w]
            if ps:
                parts.append(label + ": " + ", ".join(ps))
        A.word(m.group(1), "; ".join(parts), "scaling training groups")
        gm, gs = mean_sd(gfl["fp8-e4m3-current"])
        mm_, ms_ = mean_sd(gfl["mxfp8"])
        for g, v in ((2, gm), (3, gs), (4, mm_), (5, ms_)):
            A.num(m.group(g), v, "scaling training flushed")
        check_cmp_str(A, m.group(6), S.acc("fp8-e4m3-current"), S.acc("mxfp8"), "current vs mxfp8")
        check_cmp_str(A, m.group(7), S.acc("fp8-hybrid-delayed"), S.acc("fp16-torch-i50"),
                      "delayed vs GradScaler")
        A.num(m.group(8), steps_n - t0, "last steps")
        for g, p in ((9, "fp8-e4m3-current"), (10, "mxfp8"), (11, "fp8-hybrid-delayed")):
            A.num(m.group(g), late[p], "late flushed " + p, slack=1e-6)
        A.num(m.group(12), 100.0 * curves["fp8-hybrid-delayed"][0][7], "first step flushed", slack=1e-6)
        # the claim: the first step's scale is 1: the policy's E5M2 quantizer
        # saw no amax before it (te_delayed starts at 1)
        A.ok(te_delayed([0.5], 57344.0)[0] == 1.0, "delayed scaling starts at scale 1")
    A.take1("*Figure scaling_train*", "scaling training figure", start=s0, end=s1)
    m = A.take1("Training with FP8 and MX matrix products in the deep setting, {I} seeds.  Small "
                "panels: each policy's training loss per step (mean over the seeds; band: smallest "
                "to largest) over binary32's (grey).  Bottom left: each policy's test accuracy minus "
                "binary32's, seed by seed (dots), with the mean difference and its 95% interval "
                "(bar) and the verdict by the rule above it; binary32 reaches {N} ± {N}%.  Bottom right: "
                "the fraction of nonzero output-gradient values the quantizer flushed to zero, per "
                "step (mean over the seeds).", "scaling training caption", start=s0, end=s1)
    if m:
        A.num(m.group(1), n, "seeds")
        fm, fs = mean_sd(acc32)
        A.num(m.group(2), fm, "fp32 mean")
        A.num(m.group(3), fs, "fp32 sd")
    return S


def check_plot_names(A, plots, sets, stem="training_%s"):
    for name, S in sets.items():
        path = os.path.join(plots, (stem + ".gp") % name)
        with open(path, encoding="utf-8") as f:
            m = re.search(r'^names = "([^"]*)"', f.read(), re.M)
        A.ok(m is not None and m.group(1).split() == S.pols,
             "%s: policy names %r differ from the data's %r" % (path, m and m.group(1), S.pols))


# ---- the README's section --------------------------------------------------

def readme_training(A, d, sets):
    """the README's sentences from experiments 6, 8, 9 and 10, against the
    data with the sections' own rules (Holm over each section's family)"""
    # experiment 6's family, as check_training rebuilds it
    cs = []
    for nm in ("default", "deep", "tiny", "adam"):
        S = sets[nm]
        cs += setting_cmps(S)
        if nm in ("default", "deep"):
            cs.append(Cmp(nm + ":o3", nm + ":fp32", "lost", S.lost("o3"), S.lost("fp32"),
                          S.hashes("o3"), S.hashes("fp32")))
    sw = Dat(os.path.join(d, "training_tiny_sweep.dat"))
    Sf = sets["tiny"]
    f32 = {int(r[2]): (100.0 * int(r[3]) / int(r[4]), r[18]) for r in Sf.runs["fp32"]}
    for w in sorted({int(r[0]) for r in sw.blocks[0]}, reverse=True):
        rows = [r for r in sw.blocks[0] if int(r[0]) == w]
        ref = [f32[int(r[1])] for r in rows]
        for pi, pname in enumerate(("fp16", "fp16-torch")):
            cs.append(Cmp("sweep%d:%s" % (w, pname), "tiny:fp32", "acc",
                          [100.0 * int(r[2 if pi == 0 else 6]) / int(r[3]) for r in rows],
                          [x[0] for x in ref], [r[8 + pi] for r in rows], [x[1] for x in ref]))
    finish_family(cs)
    by = {}
    for c in cs:
        by.setdefault(c.a_key if c.metric == "acc" else c.a_key + "/lost", c)
    S = sets["tiny"]
    D = sets["default"]
    same = (all(a[1:5] == b[1:5] for a, b in zip(D.curves.blocks[0], S.curves.blocks[0]))
            and D.hashes("fp32") == S.hashes("fp32"))
    A.ok(same, "README: binary32 with lr/W is not bit for bit the W = 1 run")
    # 2^-16 over batches of 64 is the per-token factor 2^-22 of a mean
    A.ok("batch=64 " in S.curves.header["params"] and "loss_weight=0x1p-16" in S.curves.header["params"],
         "README: the tiny setting is not loss weight 2^-16 over batches of 64")
    rep = S.groups()
    c16 = by["tiny:" + rep["fp16"]]
    cgs = by["tiny:" + rep["fp16-torch"]]
    c20 = by["sweep-20:fp16"]
    a16, a32 = S.acc("fp16"), S.acc("fp32")
    m = A.take1("- **Loss scaling keeps what fp16 flushes; the accuracy cost shows only\n  for very small "
                "gradients.**  With the loss weighted by 2^-16 (the\n  per-token factor of a mean over 2^22 "
                "tokens; binary32 with lr/W trains\n  bit for bit as with W = 1, in every seed), fp16 without "
                "scaling has\n  {N}% of its weight-gradient values exactly zero (binary32: {N}%) and\n  reaches "
                "{N} ± {N}% test accuracy against binary32's {N} ± {N}%:\n  lower in {I} of {I} seeds, but not "
                "shown by the rule after Holm's correction\n  ({N} ± {N} points, Holm p {N}); at a loss weight of "
                "2^-20 it is\n  lower ({N} ± {N} points).  GradScaler (bit-identical to apex O2\n  here) reaches "
                "{N} ± {N}%, equivalent to binary32.", "README tiny")
    if m:
        vals = [S.frac("fp16", 13, 12), S.frac("fp32", 13, 12)] + list(mean_sd(a16)) + \
            list(mean_sd(a32))
        for g, v in enumerate(vals, 1):
            A.num(m.group(g), v, "README tiny %d" % g)
        A.num(m.group(7), sum(1 for x, y in zip(a16, a32) if x < y), "seeds lower")
        A.num(m.group(8), S.n, "seeds")
        A.ok(c16.verdict == "not shown", "README: tiny fp16 is %s, not 'not shown'" % c16.verdict)
        A.num(m.group(9), c16.mean, "tiny fp16 difference", slack=1e-9)
        A.num(m.group(10), c16.half, "tiny fp16 half-width", slack=1e-9)
        A.num(m.group(11), c16.p_holm, "tiny fp16 Holm p", rel=1e-3)
        A.ok(c20.verdict == "lower", "README: fp16 at 2^-20 is %s, not lower" % c20.verdict)
        A.num(m.group(12), c20.mean, "2^-20 difference", slack=1e-9)
        A.num(m.group(13), c20.half, "2^-20 half-width", slack=1e-9)
        A.ok(rep["o2"] == rep["fp16-torch"], "README: GradScaler and O2 are not bit-identical in tiny")
        for g, v in zip((14, 15), mean_sd(S.acc("fp16-torch"))):
            A.num(m.group(g), v, "README GradScaler")
        A.ok(cgs.verdict == "equivalent", "README: GradScaler is %s, not equivalent" % cgs.verdict)
    # the language model (experiment 10)
    L = Setting(d, "lm")
    Fl = Dat(os.path.join(d, "trainlm_flush.dat"))
    tokens = int(Fl.param("tokens_per_step"))
    lv = fl = 0
    for r in Fl.blocks[0]:
        if r[0] == "fp16":
            lv += int(r[3]) - int(r[4]) - int(r[5])
            fl += int(r[6])
    cl = setting_cmps(L)
    finish_family(cl)
    byl = {c.a_key: c for c in cl}
    b1 = [[float(x) for x in r] for r in Fl.blocks[1]]
    half = None
    for k in sorted({int(r[0]) for r in b1}):
        ls = [r for r in b1 if int(r[0]) == k]
        if half is None and 100.0 * sum(r[4] for r in ls) / sum(r[3] for r in ls) > 50:
            half = k
    m = A.take1("A character\n  language model averaging its loss over {I} tokens per step flushes\n  {N}% of its "
                "activation gradients without scaling and stays equivalent\n  to binary32; its binary32 "
                "gradients would flush more than half only from\n  a mean over {I} tokens per step.",
                "README language model")
    if m:
        A.num(m.group(1), tokens, "lm tokens")
        A.num(m.group(2), 100.0 * fl / lv, "lm flushed")
        A.ok(byl["lm:" + L.groups()["fp16"]].verdict == "equivalent", "README: lm fp16 not equivalent")
        A.ok(half is not None, "README: the lm what-if never passes half")
        if half is not None:
            A.num(m.group(3), tokens * 2 ** half, "lm half tokens")
    # Adam (experiments 6 and 9)
    Sa = sets["adam"]
    Ssr = Setting(d, "sr")
    csr = setting_cmps(Ssr)
    csr += [Cmp("sr:%s" % a, "sr:%s" % b, "acc", Ssr.acc(a), Ssr.acc(b), Ssr.hashes(a), Ssr.hashes(b))
            for a, b in (("bf16-pure-sr", "bf16-pure"), ("fp16-pure-sr", "fp16-pure"))]
    finish_family(csr)
    bysr = {c.a_key: c for c in csr if c.b_key == "sr:fp32"}
    m = A.take1("Training with Adam at lr 1e-4, bf16 weights and\n  optimizer state without a master copy lose "
                "{N}% of their updates and\n  reach {N} ± {N}% test accuracy (binary32: {N} ± {N}%, lower by the\n"
                "  rule); rounding each update stochastically instead, {N} ± {N}%,\n  equivalent to binary32.  "
                "fp16 weights with fp16 optimizer state (apex\n  O3) diverge at step {I}: Adam's second moment "
                "flushes to zero and the\n  update is divided by eps alone; with only the optimizer state in\n"
                "  binary32 the same run trains ({N} ± {N}%).", "README adam")
    if m:
        vals = [mean_sd(Sa.lost("bf16-pure"))[0]] + list(mean_sd(Sa.acc("bf16-pure"))) + \
            list(mean_sd(Sa.acc("fp32")))
        for g, v in enumerate(vals, 1):
            A.num(m.group(g), v, "README adam %d" % g)
        A.ok(by["adam:" + Sa.groups()["bf16-pure"]].verdict == "lower", "README: bf16-pure not lower")
        for g, v in zip((6, 7), mean_sd(Ssr.acc("bf16-pure-sr"))):
            A.num(m.group(g), v, "README bf16-pure-sr")
        A.ok(bysr["sr:" + Ssr.groups()["bf16-pure-sr"]].verdict == "equivalent",
             "README: bf16-pure-sr not equivalent")
        fnf = {int(r[7]) for r in Sa.runs["o3"]}
        A.ok(len(fnf) == 1, "README: o3 diverges at different steps")
        A.num(m.group(8), min(fnf), "o3 divergence step")
        A.ok(Sa.diverged("o3-state32") == 0 and sum(int(r[21]) for r in Sa.runs["o3"]) > 0,
             "README: the o3 cause does not hold")
        for g, v in zip((9, 10), mean_sd(Sa.acc("o3-state32"))):
            A.num(m.group(g), v, "README o3-state32")
    # accumulation (experiment 8)
    Sc = Setting(d, "accum")
    cac = setting_cmps(Sc)
    cac += [Cmp("accum:%s" % a, "accum:%s" % b, "acc", Sc.acc(a), Sc.acc(b), Sc.hashes(a), Sc.hashes(b))
            for a, b in (("fp16-acc16", "fp16"), ("fp16-torch-acc16", "fp16-torch"),
                         ("fp16-torch-tc32", "fp16-torch"), ("fp16-torch-tc16", "fp16-torch-tc32"))]
    a16, a, g16, g = (Sc.acc(p) for p in ("fp16-acc16", "fp16", "fp16-torch-acc16", "fp16-torch"))
    cac.append(Cmp("accum:effect-unscaled", "accum:effect-GradScaler", "acc",
                   [x - y for x, y in zip(a16, a)], [x - y for x, y in zip(g16, g)],
                   ["i%s%s" % t for t in zip(Sc.hashes("fp16-acc16"), Sc.hashes("fp16"))],
                   ["g%s%s" % t for t in zip(Sc.hashes("fp16-torch-acc16"), Sc.hashes("fp16-torch"))]))
    finish_family(cac)
    pair = {(c.a_key, c.b_key): c for c in cac}

    def differ(p):
        rows = Sc.runs[p]
        return 100.0 * sum(int(r[24]) for r in rows) / sum(int(r[23]) for r in rows)
    m = A.take1("In training, accumulating the digits MLP's matrix\n  products in binary16 changes {N}% of their "
                "outputs (tensor-core blocks\n  chained through binary16: {N}%) and leaves the test accuracy\n"
                "  equivalent to binary32 accumulation, with and without loss scaling:\n  with sums of at most {I} "
                "products, Micikevicius et al.'s need for fp32\n  accumulation does not reproduce.",
                "README accum training")
    if m:
        A.num(m.group(1), differ("fp16-acc16"), "README accum differ")
        A.num(m.group(2), differ("fp16-torch-tc16"), "README tc16 differ")
        A.num(m.group(3), 64, "README accum sum length")
        for k in (("accum:fp16-acc16", "accum:fp16"), ("accum:fp16-torch-acc16", "accum:fp16-torch")):
            A.ok(pair[k].verdict == "equivalent", "README: %s is %s, not equivalent" % (k[0], pair[k].verdict))


def readme_lost_bits(A, d):
    """The README's sentence on stochastic rounding with N supplied bits."""
    D, P, cells = lost_bits_data(d)
    R = lost_bits_derive(P, cells)
    m = A.take1("With N supplied random bits (P3109's four variants), every update below\n"
                "  2^-N spacings is lost by fastest when |w| grows, and below 2^-(N+1) by\n"
                "  the other three, so an update of 2^-{I} of its weight needs {I} random\n"
                "  bits with fastest and {I} with the others; fastest, which keeps an update\n"
                "  that shrinks |w| with probability at least 2^-N, leaves the weight of 1\n"
                "  (and its mirror growing from 0.5) closer to zero than exact\n  at N = {S}.",
                "README bits")
    if not m:
        return
    A.ok(R["cut"][("fastest", "grows")] == 2 and
         all(R["cut"][(v, dn)] == 1 for v in SRV[:3] for dn in DIRS) and
         R["cut"][("fastest", "shrinks")] == 0, "README: the cut-offs do not follow")
    A.ok(R["shrink"][3] >= 3 and R["shrink"][2] <= 4.5,
         "README: fastest does not keep small updates that shrink |w| with probability 2^-N")
    k = -int(m.group(1))
    row = [r for r in R["rows"] if r[1] == k]
    if A.ok(len(row) == 1, "README: 2^%d is not a row of the bits table" % k):
        cols = row[0][3]
        A.num(m.group(2), cols[3][0] + 1, "README: bits for fastest")
        A.ok(cols[0][0] == cols[1][0] == cols[2][0], "README: the others need different bits")
        A.num(m.group(3), cols[0][0] + 1, "README: bits for the others")
    # the long run's classes, as the report derives them
    run = Dat(os.path.join(d, "lost_bits_run.dat"))
    st = {}
    for r in run.blocks[0]:
        ends = [float(x) for x in r[9:]]
        diffs = [(e - float(r[5])) / abs(float(r[4])) for e in ends]
        mm, sd = mean_sd(diffs)
        st[(r[0], r[1], int(r[2]))] = (mm, sd / math.sqrt(len(ends)))
    sp = (1 - HALF_BELOW_ONE) / abs(half_round(1e-4))
    closer = [N for N in range(1, P["nb"] + 1)
              if all(st[(run_, "fastest", N)][0] < -2 * st[(run_, "fastest", N)][1] and
                     st[(run_, "fastest", N)][0] < -sp for run_ in ("shrinks", "grows"))]
    A.word(m.group(4), nlist(closer), "README: fastest closer to zero")


def check_readme(path, d):
    """The README's 'What the lab shows' against a full lab output: its
    numbers and claims, as for the report.  Returns an Audit."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^### What the lab shows\n(.*?)(?=^#+ )", text, re.S | re.M)
    if not m:
        A = Audit(None, "")
        A.ok(False, "%s: no 'What the lab shows' section" % path)
        return A
    A = Audit(None, m.group(1), flow=True)
    sets = {n: Setting(d, n) for n in ("default", "deep", "tiny", "adam")}
    u = Dat(os.path.join(d, "gradhist_underflow.dat"))
    lr = Dat(os.path.join(d, "lost_ratio.dat"))
    run = Dat(os.path.join(d, "lost_run.dat"))
    ac = Dat(os.path.join(d, "accum.dat"))
    A.ok(u.param("quick") == "0" and u.header.get("seed") == "1",
         "--readme needs a full lab with seed 1")
    S = sets["tiny"]
    n = S.n
    # the run's log in the code block: counts only (the times vary)
    logs = re.findall(r"^experiment (\w+) +\d+\.\d+ s, (\d+) data file\(s\)$", A.text, re.M)
    want = {"atlas": 3, "rounding": 3, "gradhist": 4, "lost": 4, "accum": 1, "training": 10,
            "scaling": 5, "trainaccum": 3, "trainsr": 3, "trainlm": 4}
    A.ok(dict((k, int(v)) for k, v in logs) == want, "README log: data files per experiment")
    A.take(r"^experiment \w+ +\d+\.\d+ s, \d+ data file\(s\)$", "README log", regex=True, count=10)
    A.take("wrote out/REPORT.md (0 experiment(s) failed, 20/20 figures)", "README log end")
    A.take(r"^lab_audit: out: 10 sections, \d+ checks, 0 failures$", "README audit line", regex=True)
    m = A.take1("(ten experiments,\ntwenty gnuplot figures", "README counts")
    A.take1("`python3 tests/lab_audit.py out --readme README.md` checks this section\n"
            "against a full run with seed 1.", "README audit sentence")
    # the times are measurements of a machine, not of the data: only their
    # sentence is matched
    m = A.take1("Each training comparison is\nrun on {I} seeds (`--seeds N`; `--quick`: {I}), as independent jobs on\n"
                "`--jobs N` threads (default: one per CPU): the full lab takes {I} to {I} s\nof CPU time, spread "
                "over the cores (so at least {I} s of wall time on two\ncores; {I} to {I} minutes measured on two "
                "cores shared with other jobs at load\naverages of {I} to {I}), `--quick` about {I} s.", "README seeds and times")
    if m:
        A.num(m.group(1), n, "seeds")
        A.num(m.group(2), 3, "quick seeds")
    m = A.take1("figures come from real training runs of an MLP on\nthe UCI digits ({I} training / {I} "
                "test images per split)", "README split")
    if m:
        A.num(m.group(1), int(S.runs["fp32"][0][5]), "train images")
        A.num(m.group(2), int(S.runs["fp32"][0][4]), "test images")
    A.take1("Highlights of a run (seed 1).", "README seed")
    m = A.take1("Training results are mean ± standard deviation over seeds 1 to {I}.  In\nexperiments 6 and 8 "
                "to 10 a difference between two policies is called when\nthe paired t-test on their per-seed "
                "differences, Holm-adjusted over the\nsection's tests, gives p < 0.05, and equivalence (within "
                "±{N} point) when two\none-sided tests, Holm-adjusted likewise, do; otherwise it is not shown.\n"
                "Experiment 7 calls a difference when the 95% confidence interval of the\nper-seed (paired) "
                "difference excludes 0:", "README rule")
    if m:
        A.num(m.group(1), n, "seeds")
        A.num(m.group(2), MARGIN, "margin")
    readme_training(A, d, sets)
    rows = [[int(x) for x in r] for r in u.blocks[0]]
    live = lambda r, o: r[1 + o] - r[2 + o] - r[3 + o]
    sd = Dat(os.path.join(d, "gradhist_seeds.dat"))
    fl = {}
    for r in sd.blocks[0]:
        fl[(int(r[0]), r[1], r[2], int(r[3]))] = (int(r[4]), int(r[5]))
    gseeds = sorted({k[0] for k in fl})
    glayers = sorted({k[3] for k in fl})
    gsh = lambda seed, sc: (100.0 * sum(fl[(seed, sc, "agrad", l)][1] for l in glayers) /
                            sum(fl[(seed, sc, "agrad", l)][0] for l in glayers))
    parts = []
    for seed in gseeds:
        tf = sum(fl[(seed, "gs", "agrad", l)][1] for l in glayers)
        parts.append(100.0 * fl[(seed, "gs", "agrad", glayers[-1])][1] / tf if tf else 100.0)
    st = Dat(os.path.join(d, "gradhist_steps.dat"))
    srows = [[float(x) for x in r] for r in st.blocks[0]]
    NLg = len(glayers)
    m = A.take1("In the binary32 runs of the *deep*\n  setting ({I} layers, small initialisation, batch "
                "{I}; the gradient\n  histograms), counted at every step, {N}% of the nonzero "
                "activation\n  gradients already round to zero in fp16 at scale 1 in seed {I}\n  "
                "({N} ± {N}% over seeds {I} to {I}), {N}% at scale 1024; at GradScaler's\n  scale "
                "{N}% or more of what still rounds to zero lies in the logit\n  layer.  By every "
                "step's amax, overflow appears first in the weight\n  gradients, at S = 2^{I} (step "
                "{I}), and in the activation gradients at\n  2^{I}; at each of the {I} steps "
                "GradScaler skipped, the binary32 gradients\n  overflow too.", "README gradhist")
    if m:
        A.num(m.group(1), 4, "deep depth")
        A.num(m.group(2), 256, "deep batch")
        A.ok("depth=4" in u.header["params"] and "batch=256" in u.header["params"] and
             "(every step)" in u.header["params"], "deep setting, every step")
        A.num(m.group(3), 100.0 * rows[0][10] / live(rows[0], 6), "activation underflow at 1")
        A.num(m.group(4), gseeds[0], "first seed")
        A.ok(abs(gsh(gseeds[0], "s1") - 100.0 * rows[0][10] / live(rows[0], 6)) < 1e-9,
             "README: the flush share is not the sweep's")
        am, asd = mean_sd([gsh(x, "s1") for x in gseeds])
        A.num(m.group(5), am, "flush mean")
        A.num(m.group(6), asd, "flush sd")
        A.num(m.group(7), gseeds[0], "first seed")
        A.num(m.group(8), gseeds[-1], "last seed")
        A.num(m.group(9), 100.0 * rows[10][10] / live(rows[10], 6), "activation underflow at 1024")
        A.ok(min(parts) < 100.0, "README: all the flush at GradScaler's scale lies in the last layer")
        A.num(m.group(10), min(parts), "part in the logit layer")
        fw = next(r[0] for r in rows if r[6])
        fa = next(r[0] for r in rows if r[12])
        A.ok(fw < fa, "README: weight gradients do not overflow first")
        A.num(m.group(11), fw, "first weight overflow")
        a, t = max((srows[t][1 + l], -t) for l in range(NLg) for t in range(len(srows)))
        A.ok(a * 2.0 ** fw >= 65520 > a * 2.0 ** (fw - 1), "README: the largest amax and 2^k")
        A.num(m.group(12), -t, "step of the largest weight-gradient amax")
        A.num(m.group(13), fa, "first activation overflow")
        skips = [t for t, r in enumerate(srows) if int(r[2 + 2 * NLg])]
        A.num(m.group(14), len(skips), "GradScaler skips")
        A.ok(all(max(srows[t][1 + i] for i in range(2 * NLg)) * srows[t][1 + 2 * NLg] >= 65520
                 for t in skips), "README: a skipped step without binary32 overflow")
    rr = [[float(x) for x in r] for r in run.blocks[0]]
    m = A.take1("A weight of 1 receiving {I}\n  updates of -1e-4 stays at 1 in fp16 and bf16: below 1 the fp16 numbers\n"
                "  are 2^-11 apart, and round to nearest takes back a downward update\n  smaller than half of that, "
                "2^-12 (bf16: 2^-9); a binary32 master copy\n  ends at {N}.", "README lost run")
    if m:
        A.num(m.group(1), int(run.param("steps")), "steps")
        A.ok(all(r[2] == 1 and r[4] == 1 for r in rr), "README: fp16/bf16 weights do not stay at 1")
        A.ok(1 - HALF_BELOW_ONE == 2 ** -11, "fp16 spacing below 1")
        A.num(m.group(2), rr[-1][5], "master end")
    rows_l = [[float(x) for x in r] for r in lr.blocks[0]]
    col = [r[1] for r in rows_l]
    ia = -1
    while col[ia + 1] == 1.0:
        ia += 1
    inn = len(col)
    while col[inn - 1] == 0.0:
        inn -= 1
    m = A.take1("In fp16 an update to a\n  weight m·2^e is lost when |dw|/|w| < 2^-11/m: measured, every update is\n"
                "  lost up to |dw|/|w| = 2^{N} and none from 2^{N}, around Micikevicius\n  et al.'s |w| = 2048|dw|; "
                "with stochastic rounding an update of u\n  spacings survives with probability min(1, u), unless dw "
                "itself rounds\n  to zero in fp16 before the add (for every weight up to |dw|/|w| =\n  2^{N}, for "
                "{N}% at 2^{N}, for none from 2^{N}), and the\n  measured kept fractions lie within {N} binomial "
                "sampling errors of that\n  expectation (at the {I} ratios where the normal approximation "
                "holds).", "README edges")
    if m:
        A.num(m.group(1), math.log2(rows_l[ia][0]), "all-lost edge")
        A.num(m.group(2), math.log2(rows_l[inn][0]), "none-lost edge")
        A.ok(math.log2(rows_l[ia][0]) <= -11 <= math.log2(rows_l[inn][0]),
             "README: the measured edges do not bracket |w| = 2048|dw|")
        zs = [abs((r[6] / r[4] - r[7]) / r[8]) for r in rows_l
              if r[8] > 0 and r[7] * r[4] >= 10 and r[4] - r[7] * r[4] >= 10]
        n_w = [r[4] for r in rows_l]
        dwz = [r[5] for r in rows_l]
        za = -1
        while dwz[za + 1] == n_w[za + 1]:
            za += 1
        zn = len(dwz)
        while dwz[zn - 1] == 0:
            zn -= 1
        A.num(m.group(3), math.log2(rows_l[za][0]), "dw all-zero edge")
        k26 = min(range(len(rows_l)), key=lambda i: abs(math.log2(rows_l[i][0]) - float(m.group(5))))
        A.ok(abs(math.log2(rows_l[k26][0]) - float(m.group(5))) < 1e-9, "README: dw ratio on the grid")
        A.num(m.group(4), 100.0 * dwz[k26] / n_w[k26], "dw zero share")
        A.num(m.group(6), math.log2(rows_l[zn][0]), "dw none-zero edge")
        A.num(m.group(7), max(zs), "largest |z|", slack=1e-4)
        A.num(m.group(8), len(zs), "z count")
    readme_lost_bits(A, d)
    arows = [[float(x) for x in r] for r in ac.blocks[0]]
    ev = {r[0]: (int(r[1]), float(r[2]), float(r[3])) for r in ac.blocks[1]}
    last = arows[-1]
    m = A.take1("Summing 10^{I} values in [0,1)\n  held in fp16, an fp16 accumulator with round to nearest last moves at\n"
                "  term {I}, to {N}, where {N} + 1 rounds back to {N} (relative error\n  {N}); fp32 accumulation errs "
                "by {N}, Kahan by {N}.  An fp16\n  accumulator with stochastic rounding keeps up with the sum, and so\n"
                "  overflows to infinity at term {I}, {I} terms after the exact sum\n  passes {N}.", "README accum")
    if m:
        A.num(m.group(1), math.log10(last[0]), "terms")
        L, before, after = ev["binary16_sum_last_change"]
        A.num(m.group(2), L, "last change")
        for g in (3, 4, 5):
            A.num(m.group(g), after, "stuck value")
        A.ok(half_round(after + 1) == after and after == last[11], "README: the fp16 sum is not stuck")
        A.num(m.group(6), last[1], "rn error")
        A.num(m.group(7), last[3], "fp32 error")
        A.num(m.group(8), last[4], "kahan error")
        so = ev["binary16_sr_sum_overflow"][0]
        ex = ev["exact_sum_exceeds_max"][0]
        A.num(m.group(9), so, "sr overflow term")
        A.num(m.group(10), so - ex, "terms after")
        A.num(m.group(11), HALF_MAX, "max")
    # scale granularity: the totals and per-layer rows the report's audit
    # checks against the per-tensor rows, and the training seeds
    G = Dat(os.path.join(d, "scaling.dat"))
    T = Dat(os.path.join(d, "scaling_tensors.dat"))
    tot = {r[1]: [float(x) for x in r[2:]] for r in G.blocks[0]}
    hid = [r for r in G.blocks[5] if r[2] == "agrad"][:-1]
    sc = {}
    for r in T.blocks[0]:
        sc[(int(r[0]), r[2], int(r[1]), r[3])] = f32(float(r[4]))
    later = sorted({k[0] for k in sc if k[0] > 0})
    lays = sorted({k[2] for k in sc})
    nb = sum(1 for t in later for k in ("wgrad", "agrad") for l in lays
             if sc[(t, k, l, "del-e4m3")] < sc[(t, k, l, "cur-e4m3")])
    Sc = Setting(d, "scaling", curves="scaling_train.dat", seeds="scaling_train_seeds.dat")
    m = A.take1("**Scale granularity decides what FP8 keeps.**  On the gradients of the\n  binary32 "
                "*deep* run, one FP8 scale per tensor (Transformer Engine's\n  current scaling, E4M3) "
                "flushes {N}% of the nonzero weight gradients\n  and {N}% of the activation gradients "
                "to zero, one scale per block of\n  {I} (MXFP8 E4M3, rule rceil) {N}% and {N}%; in the "
                "hidden layers'\n  activation gradients, {N}% to {N}% against {N}% to {N}%.  Delayed\n"
                "  scaling (amax history 1024) has recorded no amax at the first step and\n  uses "
                "scale 1 there: E4M3 flushes {N}% and {N}% of that step's\n  gradients.  After it, "
                "delayed E4M3 flushes {N}% and {N}% against\n  current scaling's {N}% and {N}% over "
                "the same steps: in {I} of the\n  {I} watched gradient tensors an earlier, larger "
                "amax set a smaller\n  scale, in {I} of them (at steps {I} to {I}) one below half the "
                "current\n  scale, the history holding the amaxes of steps {I} to {I}.  Trained\n  "
                "with fp8-hybrid-delayed, fp8-e4m3-current and mxfp8, the MLP reaches\n  {N} ± {N}%, "
                "{N} ± {N}% and {N} ± {N}% test accuracy against binary32's\n  {N} ± {N}%: {S} by "
                "the rule.", "README scaling")
    if m:
        A.ok(T.param("quick") == "0" and "depth=4" in T.header["params"], "README scaling: deep, full")
        A.num(m.group(1), tot["cur-e4m3"][0], "README cur w")
        A.num(m.group(2), tot["cur-e4m3"][4], "README cur a")
        A.num(m.group(3), 32, "block")
        A.num(m.group(4), tot["mxfp8-e4m3-rceil"][0], "README mx w")
        A.num(m.group(5), tot["mxfp8-e4m3-rceil"][4], "README mx a")
        A.num(m.group(6), min(float(r[3]) for r in hid), "README hidden cur min")
        A.num(m.group(7), max(float(r[3]) for r in hid), "README hidden cur max")
        A.num(m.group(8), min(float(r[4]) for r in hid), "README hidden mx min")
        A.num(m.group(9), max(float(r[4]) for r in hid), "README hidden mx max")
        # delayed scaling: step 0 and the steps after it, from the per-tensor rows
        trows = [r for r in T.blocks[0]]
        ufs = lambda sch, kind, st: sum(int(r[7]) for r in trows if r[3] == sch and r[2] == kind and st(int(r[0])))
        nzs = lambda sch, kind, st: sum(int(r[6]) for r in trows if r[3] == sch and r[2] == kind and st(int(r[0])))
        z0 = lambda t: t == 0
        aft = lambda t: t > 0
        vals0 = [100.0 * ufs("del-e4m3", k, z0) / nzs("del-e4m3", k, z0) for k in ("wgrad", "agrad")]
        valsd = [100.0 * ufs("del-e4m3", k, aft) / nzs("del-e4m3", k, aft) for k in ("wgrad", "agrad")]
        valsc = [100.0 * ufs("cur-e4m3", k, aft) / nzs("cur-e4m3", k, aft) for k in ("wgrad", "agrad")]
        for g, v in enumerate(vals0 + valsd + valsc, 10):
            A.num(m.group(g), v, "README delayed")
        A.num(m.group(16), nb, "README delayed below")
        A.num(m.group(17), len(later) * 2 * len(lays), "README delayed tensors")
        lo = [(t, k, l) for t in later for k in ("wgrad", "agrad") for l in lays
              if sc[(t, k, l, "del-e4m3")] / sc[(t, k, l, "cur-e4m3")] < 0.5]
        St_ = Dat(os.path.join(d, "scaling_steps.dat"))
        amx = {}
        for r in St_.blocks[0]:
            for i, k in enumerate(("wgrad", "agrad", "act")):
                for l in lays:
                    amx.setdefault((k, l), []).append(f32(float(r[2 + i * len(lays) + l])))
        hsteps = []
        for t, k, l in lo:
            h = amx[(k, l)][:t]
            hsteps.append(h.index(max(h)))
        A.num(m.group(18), len(lo), "README delayed below half")
        A.num(m.group(19), min(t for t, _, _ in lo), "README delayed below half: first step")
        A.num(m.group(20), max(t for t, _, _ in lo), "README delayed below half: last step")
        A.num(m.group(21), min(hsteps), "README history steps")
        A.num(m.group(22), max(hsteps), "README history steps")
        vals = []
        for p in ("fp8-hybrid-delayed", "fp8-e4m3-current", "mxfp8", "fp32"):
            vals += list(mean_sd(Sc.acc(p)))
        for g, v in enumerate(vals, 23):
            A.num(m.group(g), v, "README scaling accuracy")
        words = {paired(Sc.acc(p), Sc.acc("fp32"))[0]
                 for p in ("fp8-hybrid-delayed", "fp8-e4m3-current", "mxfp8")}
        A.ok(len(words) == 1, "README scaling: the three policies do not share a verdict")
        w = words.pop()
        A.word(m.group(31), {"not shown": "no difference shown"}.get(w, w),
               "README scaling verdict")
    A.fails.extend(A.uncovered_numbers())
    return A


# ---------------------------------------------------------------------------

def main(argv):
    args = argv[1:]
    plots = None
    readme = None
    if "--readme" in args:
        i = args.index("--readme")
        if i + 1 >= len(args):
            print("lab_audit: --readme needs a file", file=sys.stderr)
            return 2
        readme = args[i + 1]
        del args[i:i + 2]
    if "--plots" in args:
        i = args.index("--plots")
        if i + 1 >= len(args):
            print("lab_audit: --plots needs a directory", file=sys.stderr)
            return 2
        plots = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    d = args[0]
    rep = os.path.join(d, "REPORT.md")
    if not os.path.exists(rep):
        print("lab_audit: %s: no REPORT.md" % d, file=sys.stderr)
        return 2
    A = Audit(rep)
    dats = {n: Dat(os.path.join(d, n)) for n in sorted(os.listdir(d)) if n.endswith(".dat")}
    if not dats:
        print("lab_audit: %s: no .dat files" % d, file=sys.stderr)
        return 2
    figures = len(re.findall(r"^\*Figure \w+\*", A.text, re.M))
    check_preamble(A, d, dats, figures)
    checkers = {"atlas": check_atlas, "rounding": check_rounding, "gradhist": check_gradhist,
                "lost": check_lost, "accum": check_accum, "training": check_training,
                "scaling": check_scaling, "trainaccum": check_trainaccum,
                "trainsr": check_trainsr, "trainlm": check_trainlm}
    sections = 0
    for sid, title in SECTIONS:
        span = section_span(A, title)
        if span is None:
            continue
        sections += 1
        try:
            res = checkers[sid](A, d, span)
        except (OSError, KeyError, IndexError, ValueError, AttributeError, TypeError,
                ZeroDivisionError, statistics.StatisticsError) as e:
            A.fails.append("%s: the data does not have the expected shape (%s: %s)"
                           % (sid, type(e).__name__, e))
            res = None
        if sid in ("training", "trainaccum", "trainsr", "trainlm") and plots and res:
            check_plot_names(A, plots, res)
        if sid == "scaling" and plots and res:
            check_plot_names(A, plots, {"scaling_train": res}, stem="%s")
    # the 'Data:' lines and figure stems carry no numbers to verify; the
    # image and caption lines are matched above
    A.take(r"^Data:(?: `[\w.]+`)+$", "data lines", regex=True, count=None)
    A.take(r"^!\[\w+\]\(\w+\.png\)$", "images", regex=True, count=None) if "![" in A.text else None
    A.take(r"\(\[SVG\]\(\w+\.svg\)\): |\(not drawn: (?:[^()]|\([^()]*\))*\): ", "figure links", regex=True,
           count=None) if "*Figure" in A.text else None
    bad = A.uncovered_numbers()
    A.fails.extend(bad)
    A.checks += 1
    if readme:
        try:
            R = check_readme(readme, d)
        except (OSError, KeyError, IndexError, ValueError, StopIteration) as e:
            R = Audit(None, "")
            R.ok(False, "%s: cannot check against %s (%s: %s)" % (readme, d, type(e).__name__, e))
        print("lab_audit: %s: %d checks, %d failures" % (readme, R.checks, len(R.fails)))
        A.fails.extend(readme + ": " + f for f in R.fails)
    print("lab_audit: %s: %d sections, %d checks, %d failures" % (d, sections, A.checks, len(A.fails)))
    for f in A.fails[:60]:
        print("FAIL: " + f)
    if len(A.fails) > 60:
        print("... and %d more" % (len(A.fails) - 60))
    if sections == 0:
        print("FAIL: no section of the lab found")
        return 1
    return 1 if A.fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
