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
