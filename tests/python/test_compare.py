"""fplab.compare and fplab.testing.assert_close: the same text and JSON as
`fplab compare` on the same arrays (byte for byte), and the same verdict
as torch.testing.assert_close under --torch-defaults."""
import json
import os
import sys

import numpy as np
import pytest

import fplab


def planted(rng):
    """A GEMM's operands, a reference and a kernel output with a planted
    tile, a far-off element, NaN, infinities and signed zeros."""
    a = rng.uniform(-1, 1, (48, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 40)).astype(np.float16)
    ref = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    out = ref.copy()
    out.view(np.uint16)[16:32, 8:24] += 1
    out.view(np.uint16)[3, 5] += 50
    out[40, 1] = np.nan
    ref[41, 2] = np.nan
    out[42, 3] = np.inf
    out[43, 4], ref[43, 4] = 0.0, -0.0
    return a, b, out, ref


CASES = [
    ([], {}),
    (["--ulp", "2"], {"ulp": 2}),
    (["--rtol", "1e-3", "--atol", "1e-5", "--signed-zero"],
     {"rtol": 1e-3, "atol": 1e-5, "signed_zero": True}),
    (["--torch-defaults", "--show", "5", "--nan-payload"],
     {"torch_defaults": True, "show": 5, "nan_payload": True}),
    (["--tile", "16x16", "--show", "3"], {"tile": (16, 16), "show": 3}),
    (["--gemm", "--inputs", "A", "B", "--kblock", "16"],
     {"gemm": True, "inputs": "ab", "kblock": 16}),
    (["--exact", "X", "--inputs", "A", "B", "--ulp", "1"],
     {"exact": True, "inputs": "ab", "ulp": 1}),
    (["--gemm", "--threads", "1"], {"gemm": True, "threads": 1}),
]


@pytest.mark.parametrize("args, kw", CASES)
def test_text_and_json_equal_the_cli(args, kw, cli, rng, tmp_path, cases):
    a, b, out, ref = planted(rng)
    d = str(tmp_path)
    paths = {}
    for name, arr in (("A", a), ("B", b), ("K", out), ("R", ref),
                      ("X", a.astype(np.float64) @ b.astype(np.float64))):
        paths[name] = os.path.join(d, name + ".npy")
        np.save(paths[name], arr)
    jpath = os.path.join(d, "v.json")
    cargs = [paths["K"], paths["R"]] + [paths.get(x, x) for x in args]
    r = cli("compare", *cargs, "--json", jpath)
    kw = dict(kw)
    if kw.pop("inputs", None):
        kw["inputs"] = [a, b]
        kw["input_names"] = [paths["A"], paths["B"]]
    if kw.pop("exact", None):
        kw["exact"] = np.load(paths["X"])
        kw["exact_name"] = paths["X"]
    v = fplab.compare(out, ref, names=(paths["K"], paths["R"]), **kw)
    assert str(v) == r.stdout
    with open(jpath) as fp:
        assert v.to_json() == fp.read()
    assert v.ok == (r.returncode == 0)
    assert not v.ok and not bool(v)
    j = json.loads(v.to_json())
    assert v.counts == j["counts"] and v.max_ulp == j["max_ulp"]["ulp"]
    assert v.first_nan["index"] in ([40, 1], [41, 2])
    assert v.first_inf["index"] == [42, 3]
    cases.add(out.size)
    assert cases.n == out.size


def test_layouts_and_codes_equal_the_cli(cli, rng, tmp_path, cases):
    d = str(tmp_path)
    x = rng.standard_normal((20, 33)).astype(np.float32)
    s = x.sum(-1)
    k = s.copy()
    k.view(np.uint32)[::4] += 3
    bb = rng.integers(0, 0x7f00, 300).astype(np.uint16)
    bk = bb.copy()
    bk[::30] += 2
    runs = [(k, s, {"inputs": [x]}, ["--inputs", "X"], {"X": x}),
            (k, s, {"inputs": [x, x]}, ["--inputs", "X", "X"], {"X": x}),
            (bk, bb, {"fmt": "bfloat16", "show": 4}, ["--out-format", "bf16",
                                                      "--show", "4"], {}),
            (bk[:256].astype(np.uint8), bb[:256].astype(np.uint8),
             {"fmt": "fp8-e4m3", "torch_defaults": True},
             ["--out-format", "fp8-e4m3", "--torch-defaults"], {}),
            (s, s, {}, [], {}),
            (np.float64([1, -0.0, np.nan]), np.float64([1, 0.0, np.nan]), {}, [], {})]
    for q, (kern, refa, kw, args, extra) in enumerate(runs):
        kp, rp = os.path.join(d, "k%d.npy" % q), os.path.join(d, "r%d.npy" % q)
        np.save(kp, kern)
        np.save(rp, refa)
        names = {}
        for nm, arr in extra.items():
            names[nm] = os.path.join(d, nm + ".npy")
            np.save(names[nm], arr)
        r = cli("compare", kp, rp, *[names.get(x, x) for x in args])
        if "inputs" in kw:
            kw = dict(kw, input_names=[names["X"]] * len(kw["inputs"]))
        v = fplab.compare(kern, refa, names=(kp, rp), **kw)
        assert str(v) == r.stdout, q
        assert v.ok == (r.returncode == 0)
        cases.add()
    assert cases.n == len(runs)


RT = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5),
      "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


@pytest.mark.parametrize("dt", list(RT))
def test_torch_defaults_against_torch_assert_close(dt, rng, cases):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dt)
    rtol, atol = RT[dt]
    n = 4000
    for trial in range(6):
        e = torch.from_numpy(rng.standard_normal(n) * 10).to(tdt)
        # half the trials pass, half have a few elements just outside
        scale = 0.3 if trial % 2 == 0 else 1.0 + 1.0 / (trial + 1)
        delta = (e.double().abs() * rtol + atol) * scale
        sign = torch.from_numpy(rng.choice([-1.0, 1.0], n))
        keep = torch.from_numpy(rng.random(n) < (1.0 if trial % 2 == 0 else 0.002))
        act = (e.double() + torch.where(keep, delta * sign, torch.zeros(n, dtype=torch.float64))).to(tdt)
        act[7] = e[7] = float("nan")
        try:
            torch.testing.assert_close(act, e, equal_nan=True)
            torch_ok = True
        except AssertionError:
            torch_ok = False
        v = fplab.compare(act, e, torch_defaults=True)
        close = torch.isclose(act.double(), e.double(), rtol=rtol, atol=atol,
                              equal_nan=True)
        assert v.ok == torch_ok, (dt, trial)
        assert v.counts["outside_tolerance"] == int((~close).sum()), (dt, trial)
        if torch_ok:
            assert fplab.testing.assert_close(act, e, torch_defaults=True).ok
        else:
            with pytest.raises(AssertionError) as ei:
                fplab.testing.assert_close(act, e, torch_defaults=True,
                                           msg="kernel X")
            text = str(ei.value)
            assert text.startswith("kernel X\nfplab compare: kernel actual vs "
                                   "reference expected")
            assert "verdict: FAIL" in text and "first " in text
        cases.add(n)
    assert cases.n == 6 * n


def test_assert_close_passes_and_fails():
    x = np.float32([1, 2, 3])
    assert fplab.testing.assert_close(x, x.copy()).ok
    y = x.copy()
    y.view(np.uint32)[1] += 1
    fplab.testing.assert_close(y, x, ulp=1)
    with pytest.raises(AssertionError, match=r"verdict: FAIL: 1 of 3 elements"):
        fplab.testing.assert_close(y, x)


def test_compare_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"kernel actual is float32 \(2, 3\), reference "
                                         r"expected is float32 \(3, 2\) \(shapes differ\)"):
        fplab.compare(x, x.T.copy())
    with pytest.raises(ValueError, match="formats differ"):
        fplab.compare(x, x.astype(np.float16))
    with pytest.raises(ValueError, match="choose one tolerance"):
        fplab.compare(x, x, ulp=1, rtol=0.1)
    with pytest.raises(ValueError, match="--gemm/--tile/--kblock/--plot need a 2-D"):
        fplab.compare(x[0], x[0], gemm=True)
    with pytest.raises(ValueError, match="kblock needs the GEMM's two inputs"):
        fplab.compare(x, x, kblock=4)
    with pytest.raises(TypeError, match="uint16 codes: name their format"):
        fplab.compare(x.view(np.uint16), x.view(np.uint16))


# ---- the layouts that are not IEEE's: P3109, fnuz, fn, unsigned, E8M0,
# FP6/FP4 (the codes written out in tests/compare_layouts.py, from
# docs/formats.md; an oracle that shares nothing with the library)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
from compare_layouts import FORMATS, bucket, kind  # noqa: E402
from compare_layouts import planted as layout_planted  # noqa: E402


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_layouts_counts_histogram_and_worst(fmt, cli, tmp_path, cases):
    k, r, c, hist, worst, fail2 = layout_planted(fmt)
    k, r = np.array(k, np.uint8), np.array(r, np.uint8)
    v = fplab.compare(k, r, fmt=fmt)
    j = json.loads(v.to_json())
    assert v.counts == c
    assert {bucket(h["lo"]): h["count"] for h in j["ulp_histogram"]
            if h["count"]} == hist
    assert (v.max_ulp, j["max_ulp"]["flat"]) == worst
    assert not v.ok
    v2 = fplab.compare(k, r, fmt=fmt, ulp=2)
    assert v2.counts["outside_tolerance"] == fail2
    # the same text as the command on the same codes in .npy files
    kp, rp = str(tmp_path / "k.npy"), str(tmp_path / "r.npy")
    np.save(kp, k)
    np.save(rp, r)
    out = cli("compare", kp, rp, "--out-format", fmt, "--ulp", "2")
    assert str(fplab.compare(k, r, fmt=fmt, ulp=2, names=(kp, rp))) == out.stdout
    cases.add(5)
    assert cases.n == 5


def test_layouts_nan_vs_nan_and_nan_any(cases):
    k = np.array([0x7f, 0x01, 0x7f], np.uint8)
    r = np.array([0xff, 0x01, 0x7f], np.uint8)
    f = "float8_e4m3fn"
    assert fplab.compare(k, r, fmt=f).ok
    assert not fplab.compare(k, r, fmt=f, nan_payload=True).ok
    v = fplab.compare(k, r, fmt=f, nan_payload=True, model="reveal nan=any")
    assert v.ok and "nan=any" in str(v)
    # the one NaN and the infinities of P3109 against themselves
    for fmt, codes in (("p3109:p3", [0x80, 0x7f, 0xff]),
                       ("p3109_k8p3ue", [0xff, 0xfe]),
                       ("float8_e5m2fnuz", [0x80, 0x00])):
        a = np.array(codes, np.uint8)
        v = fplab.compare(a, a.copy(), fmt=fmt, nan_payload=True,
                          signed_zero=True, ulp=0)
        nn = sum(kind(fmt, c) == "nan" for c in codes)
        assert v.ok and v.counts["identical"] == len(codes)
        assert (v.counts["nan_both"], v.counts["value_pairs"]) == (nn, len(codes) - nn)
        cases.add()
    # fnuz: 0x00 against 0x80 is a number against the NaN, not +0 vs -0
    v = fplab.compare(np.uint8([0x00, 0x80]), np.uint8([0x80, 0x00]),
                      fmt="float8_e4m3fnuz", ulp=100)
    assert (v.counts["nan_kernel_only"], v.counts["nan_reference_only"],
            v.counts["signed_zero"]) == (1, 1, 0)
    cases.add()
    assert cases.n == 4
