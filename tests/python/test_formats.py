"""fplab.Format and fplab.formats(): every preset against `fplab info`,
the IEEE ones against numpy.finfo, bfloat16 against torch.finfo."""
import re

import numpy as np
import pytest

import fplab


def info(cli, name):
    out = cli("info", name).stdout
    d = {}
    for line in out.splitlines():
        k, _, v = line.partition("  ")
        d[k.strip()] = v.strip()
    return d


def hexval(field):
    """The hex-float in '240  (0x1.ep+7, bits 0x77)'; None for 'none'."""
    if field.startswith("none"):
        return None
    m = re.search(r"(-?0x[0-9a-f.]+p[+-]?\d+)", field)
    return float.fromhex(m.group(1))


def test_every_preset_against_fplab_info(cli, cases):
    names = fplab.formats()
    assert len(names) == len(set(names)) >= 25
    for name in names:
        f = fplab.Format(name)
        d = info(cli, name)
        assert str(f) == name == d["format"]
        assert f.bits == int(d["width"].split()[0])
        assert f.p == int(d["precision"])
        assert f.ebits == int(re.search(r"(\d+) exponent", d["width"]).group(1))
        assert f.nmant == int(re.search(r"(\d+) fraction", d["width"]).group(1))
        assert f.emin == int(d["emin"]) and f.emax == int(d["emax"])
        assert f.bias == int(d["bias"])
        assert f.max == hexval(d["largest finite"])
        assert f.smallest_normal == hexval(d["smallest normal"])
        sub = hexval(d["smallest subnormal"])
        assert f.smallest_subnormal == (f.smallest_normal if sub is None else sub)
        assert f.eps == hexval(d["machine epsilon"])
        assert f.precision == (int(np.floor(-np.log10(f.eps))) if f.eps < 1 else 0)
        assert fplab.Format(f) == f and hash(fplab.Format(name)) == hash(f)
        cases.add()
    assert cases.n == len(names)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_ieee_against_numpy_finfo(dt, cases):
    fi = np.finfo(dt)
    for spec in (np.dtype(dt).name, dt, np.dtype(dt)):
        f = fplab.Format(spec)
        assert f.bits == fi.bits
        assert f.ebits == fi.nexp and f.nmant == fi.nmant
        assert f.precision == fi.precision
        assert np.dtype(dt).type(f.resolution) == fi.resolution
        assert f.max == float(fi.max) and f.min == float(fi.min)
        assert f.eps == float(fi.eps)
        assert f.smallest_normal == float(fi.smallest_normal)
        assert f.smallest_subnormal == float(fi.smallest_subnormal)
        cases.add()
    assert cases.n == 3


def test_bfloat16_against_torch_finfo(cases):
    torch = pytest.importorskip("torch")
    for name in ("bfloat16", "bf16", torch.bfloat16, "torch.bfloat16"):
        f = fplab.Format(name)
        fi = torch.finfo(torch.bfloat16)
        assert (f.bits, f.eps, f.max, f.min) == (fi.bits, fi.eps, fi.max, fi.min)
        assert f.smallest_normal == fi.smallest_normal == fi.tiny
        assert f.resolution == fi.resolution
        cases.add()
    assert cases.n == 4


def test_aliases_and_specs(cases):
    for alias, canon in (("fp16", "binary16"), ("half", "binary16"),
                         ("float8_e4m3fn", "fp8-e4m3"), ("e8m0", "fp8-e8m0"),
                         ("np.float32", "binary32"), ("ieee:4:3", "float8_e4m3"), ("ieee:3:3", "ieee:3:3"),
                         ("IEEE:5:10", "binary16"), ("p3109:p3", "p3109:p3")):
        assert str(fplab.Format(alias)) == canon, alias
        cases.add()
    f = fplab.Format("ieee:3:3")
    assert (f.bits, f.ebits, f.p, f.bias, f.max) == (7, 3, 4, 3, 15.0)
    f = fplab.Format("ieee:4:3")
    assert (f.bits, f.ebits, f.p, f.bias, f.max) == (8, 4, 4, 7, 240.0)
    assert f.has_inf and f.has_nan and f.subnormals and f.signed
    e = fplab.Format("float8_e8m0fnu")
    assert not e.signed and not e.has_inf and e.min == 2.0 ** -127
    assert repr(f) == "fplab.Format('float8_e4m3')"
    assert cases.n == 9


@pytest.mark.parametrize("bad, frag", [
    ("nosuch", "unknown format 'nosuch'"),
    ("ieee:12:3", "exponent bits E must be an integer 2..11"),
    ("ieee:4:0", "fraction bits M must be an integer 1..52"),
    ("float8_e4m3fnuzz", "float8_e4m3fnuz"),
    ("", "empty format name"),
])
def test_unknown_format_names(bad, frag):
    with pytest.raises(ValueError, match=re.escape(frag)):
        fplab.Format(bad)


def test_format_type_errors():
    with pytest.raises(TypeError, match="fplab.Format or a name"):
        fplab.Format(3.5)
    with pytest.raises(TypeError):
        fplab.round(np.zeros(2, np.float32), None)


# ---- the IEEE P3109 family -----------------------------------------------------
def golden(name):
    import gzip
    import os
    from conftest import ROOT
    path = os.path.join(ROOT, "tests", "data", name)
    if not os.path.exists(path):
        pytest.skip("no %s" % path)
    with gzip.open(path, "rt") as fp:
        return [l.rstrip("\n").split("\t") for l in fp if not l.startswith("#")]


def p3109_params(name):
    """(K, P, signed, extended) from gfloat's name p3109_k{K}p{P}{s|u}{e|f}."""
    m = re.fullmatch(r"p3109_k(\d+)p(\d+)([su])([ef])", name)
    return int(m.group(1)), int(m.group(2)), m.group(3) == "s", m.group(4) == "e"


def test_p3109_family_against_gfloat_decode(cases):
    """Every format of gfloat's decode table (K = 3 .. 16, signed and
    unsigned, extended and finite): fplab.Format's attributes follow the
    definition and the decoded values (every code for K <= 8, gfloat's
    sample above) are gfloat's, NaN for NaN."""
    table = {}
    for f in golden("p3109_decode.tsv.gz"):
        if len(f) == 3:
            table.setdefault(f[0], []).append((int(f[1], 16), float.fromhex(f[2])
                                               if f[2].startswith(("0x", "-0x"))
                                               else float(f[2])))
    assert len(table) >= 150
    for name, rows in sorted(table.items()):
        K, P, signed, ext = p3109_params(name)
        f = fplab.Format(name)
        assert f.bits == K and f.p == P and f.signed == signed, name
        assert f.has_inf == ext and f.has_nan and f.nan_style == "p3109", name
        assert f.bias == (2 ** (K - P - 1) if signed else 2 ** (K - P)), name
        assert f.ebits == K - P + (0 if signed else 1), name
        assert f.eps == 2.0 ** (1 - P), name
        assert f.smallest_normal == 2.0 ** f.emin, name
        codes = np.array([c for c, _ in rows], dtype=np.uint64)
        want = np.array([v for _, v in rows])
        got = fplab.decode(codes.astype({8: np.uint8, 16: np.uint16}[
            8 if K <= 8 else 16]), name)
        assert np.array_equal(np.isnan(got), np.isnan(want)), name
        ok = ~np.isnan(want)
        assert np.array_equal(np.asarray(got, np.float64)[ok], want[ok]), name
        fin = want[np.isfinite(want)]
        if K <= 8:   # every code: the extremes are in the table
            assert f.max == fin.max(), name
            assert f.smallest_subnormal == fin[fin > 0].min(), name
            assert f.min == (-f.max if signed else 0.0), name
            assert np.isinf(want).sum() == (0 if not ext else 2 if signed else 1)
        cases.add(len(rows))
    assert cases.n > 10000


MODES6 = ["rtz", "rup", "rdn", "rne", "rna", "rto"]


def test_p3109_conversions_against_gfloat(cases):
    """gfloat's convert table: binary64 inputs of every class, six modes,
    saturate 'none' (gfloat sat=False) and 'finite' (sat=True), whole
    formats at a time through fplab.encode.  Left out, as in the C test
    test_p3109: negative inputs of unsigned formats (gfloat has no result)
    and gfloat's TiesToAway defect (delta = 1/2 - 2^-54 rounds up)."""
    rows = {}
    for f in golden("p3109_convert.tsv.gz"):
        if len(f) == 14:
            rows.setdefault(f[0], []).append(f)
    defects = 0
    for name, rs in sorted(rows.items()):
        K, P, signed, ext = p3109_params(name)
        x = np.array([float.fromhex(r[1]) if "0x" in r[1] else float(r[1])
                      for r in rs])
        keep = signed | ~(x < 0)
        smallest = fplab.decode(1, name)
        for k in range(12):
            col = np.array([r[2 + k] for r in rs])
            use = keep & (col != "x")
            want = np.array([int(c, 16) for c in col[use]], dtype=np.uint64)
            got = fplab.encode(x[use], name, MODES6[k % 6],
                               saturate="none" if k < 6 else "finite").astype(np.uint64)
            bad = got != want
            if MODES6[k % 6] == "rna":
                sign = np.uint64(1 << (K - 1)) if signed else np.uint64(0)
                defect = bad & (np.abs(x[use]) == (0.5 - 2.0 ** -54) * smallest) & \
                    ((want & ~sign) == 1) & (got == 0)
                defects += int(defect.sum())
                bad &= ~defect
            i = np.flatnonzero(bad)
            assert i.size == 0, "%s %s sat %s x=%r: fplab %#x, gfloat %#x" % (
                name, MODES6[k % 6], k >= 6, x[use][i[0]], int(got[i[0]]),
                int(want[i[0]]))
            cases.add(int(use.sum()))
    assert defects > 0 and cases.n > 300000


def test_formats_lists_what_the_cli_lists(cli, cases):
    """fplab.formats() is the CLI's list of presets (its 'known:' list, the
    P3109 family aside, which Format takes by name)."""
    r = cli("info", "nosuch-format", check=False)
    known = re.search(r"known: (.*?); aliases", r.stderr).group(1).split(", ")
    names = []
    for k in known:
        m = re.fullmatch(r"p3109:p(\d) \.\. p3109:p(\d)", k)
        if m:
            names += ["p3109:p%d" % i for i in range(int(m.group(1)), int(m.group(2)) + 1)]
        elif k not in ("p3109_k{K}p{P}{s|u}{e|f}", "ieee:E:M"):
            names.append(k)
    assert fplab.formats() == names
    for p in range(1, 8):
        assert fplab.Format("p3109_k8p%dse" % p) == fplab.Format("p3109:p%d" % p)
        cases.add()
    # P3109 v3.1's p1: bias 64 (largest 2^62, smallest 2^-63)
    f = fplab.Format("p3109:p1")
    assert (f.bias, f.max, f.smallest_subnormal) == (64, 2.0 ** 62, 2.0 ** -63)
    assert cases.n == 7
