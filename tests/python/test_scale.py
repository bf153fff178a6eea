"""fplab.quantize and fplab.hist: bit for bit the files `fplab quantize`
writes (dequantized values, codes, scales) for every scheme, and the
counts `fplab hist` prints and writes."""
import os

import numpy as np
import pytest

import fplab

SCHEMES = ["mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2",
           "mxfp4-e2m1", "mxint8", "nvfp4", "fp8-e4m3-tensor", "fp8-e5m2-tensor",
           "mxfp8-e4m3:rceil", "mxfp4-e2m1:ceil:rna", "mxfp6-e2m3:even:rtz",
           "mxfp8-e5m2:sr", "nvfp4:sr", "fp8-e4m3-tensor:pow2",
           "fp8-e5m2-tensor:nonsat"]


def tensor(rng):
    x = (rng.standard_normal((6, 64)) * np.exp2(rng.integers(-20, 8, (6, 64)))).astype(np.float32)
    x[0, :32] *= 1e-30       # a block flushed by its neighbours' scale
    x[1, 5] = np.inf
    x[2, 7] = np.nan
    x[3, :] = 0.0
    return x


def test_schemes_list():
    assert fplab.schemes()[:6] == ["mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3",
                                   "mxfp6-e3m2", "mxfp4-e2m1", "mxint8"]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_quantize_against_fplab_quantize(scheme, cli, rng, tmp_path, cases):
    x = tensor(rng)
    d = str(tmp_path)
    ip = os.path.join(d, "x.npy")
    np.save(ip, x)
    outs = {k: os.path.join(d, k + ".npy") for k in ("deq", "codes", "scales", "ts")}
    seed = ["--seed", "9"] if scheme.endswith(":sr") else []
    extra = [] if scheme.startswith("mx") else ["--tensor-scale-out", outs["ts"]]
    r = cli("quantize", "--scheme", scheme, ip, "--dequant-out", outs["deq"],
            "--codes-out", outs["codes"], "--scales-out", outs["scales"],
            *extra, *seed)
    assert r.returncode == 0, r.stderr
    q = fplab.quantize(x, scheme, seed=9 if seed else None)
    deq, codes, scales = q
    assert deq.tobytes() == np.load(outs["deq"]).tobytes()
    assert deq.dtype == np.float32 and deq.shape == x.shape
    assert np.array_equal(codes, np.load(outs["codes"])) and codes.dtype == np.uint8
    want_s = np.load(outs["scales"])
    assert scales.dtype == want_s.dtype and scales.shape == want_s.shape
    assert scales.tobytes() == want_s.tobytes()
    if extra:
        assert np.float32(q.scale_inv).tobytes() == np.load(outs["ts"]).tobytes()
    # the summary line of the CLI from the same counts
    st = q.stats
    assert ("underflow to zero          %12d" % st["underflow"]) in r.stdout
    assert ("saturated                  %12d" % st["saturated"]) in r.stdout
    assert "relative error over %d values: max %.6e" % (st["rel_n"], st["rel_max"]) in r.stdout
    cases.add(x.size)
    assert cases.n == x.size


def test_quantize_torch_and_options(rng):
    torch = pytest.importorskip("torch")
    x = tensor(rng)
    t = torch.from_numpy(x).to(torch.bfloat16)
    deq, codes, scales = fplab.quantize(t, "mxfp8-e4m3")
    assert isinstance(deq, torch.Tensor) and deq.dtype == torch.float32
    assert codes.dtype == torch.uint8 and scales.shape == (6, 2)
    want = fplab.quantize(t.float().numpy(), "mxfp8-e4m3")
    assert deq.numpy().tobytes() == want[0].tobytes()
    q = fplab.quantize(x.ravel(), "nvfp4", last=64)
    assert q.scales.shape == (6, 4) and q.dequantized.shape == (384,)
    with pytest.raises(ValueError, match="seed= applies to stochastic rounding"):
        fplab.quantize(x, "nvfp4", seed=1)
    with pytest.raises(ValueError, match="last axis has length 48, which is not a "
                                         "multiple of the block size 32"):
        fplab.quantize(x[:, :48], "mxfp8-e4m3")
    with pytest.raises(ValueError, match="scheme: .*mxfp9"):
        fplab.quantize(x, "mxfp9")
    with pytest.raises(ValueError, match="holds no values"):
        fplab.quantize(np.zeros(0, np.float32), "nvfp4")


def hist_cli(cli, path, fmt, scales, d, extra=()):
    r = cli("hist", path, "--format", fmt, "--scales", ",".join(map(str, scales)),
            "--out", d, *extra)
    assert r.returncode == 0, r.stderr
    stem = os.path.splitext(os.path.basename(path))[0]
    dat = np.loadtxt(os.path.join(d, "hist_%s.dat" % stem), ndmin=2)
    tab = np.loadtxt(os.path.join(d, "hist_%s_scales.dat" % stem), ndmin=2)
    return r.stdout, dat, tab


@pytest.mark.parametrize("fmt, scales", [("binary16", (1, 8, 1024, 65536)),
                                         ("bfloat16", (1, 2, 4)),
                                         ("fp8-e4m3", (1, 256, 65536, 2 ** 24)),
                                         ("fp8-e5m2", (0.5, 1, 2 ** 20))])
def test_hist_against_fplab_hist(fmt, scales, cli, rng, tmp_path, cases):
    g = (rng.standard_normal(20000) * np.exp2(rng.uniform(-40, -5, 20000))).astype(np.float32)
    g[:50] = 0.0
    g[50] = np.nan
    d = str(tmp_path)
    path = os.path.join(d, "g.npy")
    np.save(path, g)
    out, dat, tab = hist_cli(cli, path, fmt, scales, d)
    h = fplab.hist(g, fmt, scales)
    assert (h.n, h.live, h.zeros, h.nonfinite) == (20000, 19949, 50, 1)
    assert np.array_equal(tab[:, 0], h.scales)
    assert np.array_equal(tab[:, 1:].astype(np.int64),
                          np.array([h.underflow, h.subnormal, h.overflow, h.normal]).T)
    assert np.array_equal(dat[:, 0], h.edges)
    assert np.array_equal(dat[:, 1:].astype(np.uint64), h.counts.T)
    if h.best is None:
        assert "best scale: none" in out
    elif h.ties == 1:
        assert "best scale: %g " % h.best in out
    else:
        assert "best scales: %g .. %g (%d tied" % (h.best_range + (h.ties,)) in out
    p = h.pow2
    assert ("no overflow for S <= 2^%d; no underflow for S >= 2^%d; no subnormal "
            "for S >= 2^%d" % (p["no_overflow_max"], p["no_underflow_min"],
                               p["no_subnormal_min"])) in out
    if h.window:
        assert "window with neither overflow nor underflow: 2^%d .. 2^%d" % h.window in out
    fr = h.fractions()
    for s in scales:
        assert "%12.6g %12.6f" % (s, fr[float(s)][0]) in out
    cases.add(len(scales))
    assert cases.n == len(scales)


def test_hist_scaling_and_lists(cli, rng, tmp_path):
    torch = pytest.importorskip("torch")
    g = (rng.standard_normal((8, 64)) * 1e-4).astype(np.float32)
    d = str(tmp_path)
    path = os.path.join(d, "g2.npy")
    np.save(path, g)
    out, _, _ = hist_cli(cli, path, "binary16", (1, 1024), d,
                         ["--scaling", "mxfp8-e4m3,nvfp4"])
    h = fplab.hist(g, "fp16", (1, 1024), scaling=["mxfp8-e4m3", "nvfp4"])
    for s in h.schemes:
        st = s["stats"]
        assert ("%-22s %10.6f" % (s["scheme"], st["underflow"] / h.live)) in out
    # a list of tensors (a model's gradients) is their concatenation
    parts = [torch.from_numpy(g[:3]), torch.from_numpy(g[3:]).half(), None]
    h2 = fplab.hist(parts, "fp16", (1, 1024))
    assert h2.n == g.size
    with pytest.raises(ValueError, match="not exactly representable in binary32"):
        fplab.hist(g, "fp16", (0.1,))
    with pytest.raises(ValueError, match="not a positive finite number"):
        fplab.hist(g, "fp16", (0,))
    with pytest.raises(ValueError, match="need lo < hi"):
        fplab.hist(g, "fp16", lo=5, hi=1)
