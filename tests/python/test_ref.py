"""fplab.Model and fplab.ref.sum / dot / gemm: bit for bit what `fplab ref`
writes for the same inputs and model (values, flags, the model's line),
and numpy's own float32 and float16 sums."""
import os

import numpy as np
import pytest

import fplab
from test_round import same_bits

FLAGS = {"inexact": 1, "underflow": 2, "overflow": 4, "divbyzero": 8,
         "invalid": 16}


def run_ref(cli, tmp, op, inputs, model, in_fmt=None, extra=()):
    """`fplab ref OP` on .npy files: (output array, flags, model line)."""
    paths = []
    for i, a in enumerate(inputs):
        p = os.path.join(tmp, "in%d.npy" % i)
        np.save(p, a)
        paths.append(p)
    mp = os.path.join(tmp, "m.model")
    with open(mp, "w") as fp:
        fp.write("\n".join(model.split()) + "\n")
    out = os.path.join(tmp, "out.npy")
    args = ["ref", op] + paths + ["--out", out, "--model", mp] + list(extra)
    if in_fmt:
        args += ["--in-format", in_fmt]
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    line = lines[0].partition("model: ")[2]
    fl = lines[1].rpartition("flags ")[2]
    flags = 0 if fl == "-" else sum(FLAGS[f] for f in fl.split(","))
    return np.load(out), flags, line


def values(rng, shape, dt):
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))
    return x.astype(dt)


SUMS = [(np.float32, ""), (np.float16, "order=numpy out=binary16"),
        (np.float32, "order=pairwise:8 acc=binary16"),
        (np.float32, "order=blocked:16 acc=bfloat16 acc-rm=sr seed=5"),
        (np.float16, "order=exact out=binary16"),
        (np.float32, "order=lanes:8:halving ftz=1 daz=1"),
        (np.float16, "order=reverse acc=binary16 out-rm=rtz nan=arm"),
        ("bf16", "acc=binary32 out=bfloat16 order=tree:((0+1)+(2+3))+((4+5)+(6+7))")]


@pytest.mark.parametrize("dt, model", SUMS)
def test_sum_against_fplab_ref(dt, model, cli, rng, tmp_path, cases):
    n = 8 if "tree:" in model else 100
    if dt == "bf16":
        x = fplab.encode(values(rng, (7, n), np.float32), "bfloat16")
        got, flags, line = fplab.ref.sum(x, model, in_fmt="bfloat16",
                                         return_flags=True)
        want, wflags, wline = run_ref(cli, str(tmp_path), "sum", [x], model,
                                      in_fmt="bfloat16")
    else:
        x = values(rng, (7, n), dt)
        x[0, 3] = np.inf
        x[1, 2] = np.nan
        got, flags, line = fplab.ref.sum(x, model, return_flags=True)
        want, wflags, wline = run_ref(cli, str(tmp_path), "sum", [x], model)
    assert got.dtype == want.dtype and got.shape == want.shape == (7,)
    assert got.tobytes() == want.tobytes()
    assert (line, int(flags)) == (wline, wflags)
    assert str(fplab.Model(line)) == line
    cases.add(got.size)
    assert cases.n == 7


def test_dot_against_fplab_ref(cli, rng, tmp_path, cases):
    for model in ("products=fused order=splitk:4", "tc=h100-fp16",
                  "acc=binary16 products=rounded order=numpy saturate=1"):
        a, b = values(rng, (3, 5, 64), np.float16), values(rng, (3, 5, 64), np.float16)
        got, flags, line = fplab.ref.dot(a, b, model, return_flags=True)
        want, wflags, wline = run_ref(cli, str(tmp_path), "dot", [a, b], model)
        assert got.shape == (3, 5) and got.tobytes() == want.tobytes()
        assert (line, int(flags)) == (wline, wflags)
        cases.add(got.size)
    assert cases.n == 45


def test_gemm_against_fplab_ref(cli, rng, tmp_path, cases):
    M, K, N = 9, 40, 7
    a, b = values(rng, (M, K), np.float16), values(rng, (K, N), np.float16)
    c = values(rng, (M, N), np.float32)
    runs = [
        ("tc=h100-fp16", (a, b), {}, []),
        ("", (a, b), {"c": c, "alpha": 0.5, "beta": -2.0},
         ["--c", "C", "--alpha", "0.5", "--beta", "-2"]),
        ("epilogue=init acc=binary32", (a.T.copy(), b.T.copy()),
         {"ta": True, "tb": True}, ["--ta", "--tb"]),
        ("products=fused out=binary16", (values(rng, (3, M, K), np.float16), b),
         {}, []),
        ("acc=binary32 out=bfloat16", (fplab.encode(a, "bf16"), fplab.encode(b, "bf16")),
         {"in_fmt": "bfloat16"}, ["--in-format", "bfloat16"]),
        ("", (a, b), {"alpha": "0.1"}, ["--alpha", "0.1"]),
    ]
    for model, ins, kw, extra in runs:
        extra = list(extra)
        if "C" in extra:
            cp = os.path.join(str(tmp_path), "c.npy")
            np.save(cp, c)
            extra[extra.index("C")] = cp
        got, flags, line = fplab.ref.gemm(*ins, model, return_flags=True, **kw)
        want, wflags, wline = run_ref(cli, str(tmp_path), "gemm", list(ins),
                                      model, extra=[e for e in extra
                                                    if e not in ("--in-format", "bfloat16")],
                                      in_fmt=kw.get("in_fmt"))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), model
        assert (line, int(flags)) == (wline, wflags)
        cases.add(got.size)
    assert cases.n == 4 * M * N + 3 * M * N + M * N


def test_numpy_sums(rng, cases):
    """np.sum along the last axis is numpy's pairwise order (docs/kernels.md):
    float32 summed in binary32, float16 in binary32 rounded once."""
    for n in (7, 100, 128, 1000, 4099):
        x = values(rng, (50, n), np.float32)
        assert same_bits(fplab.ref.sum(x, "order=numpy"), np.sum(x, axis=-1))
        h = values(rng, (50, n), np.float16)
        assert same_bits(fplab.ref.sum(h, "order=numpy out=binary16"), np.sum(h, axis=-1))
        cases.add(100)
    assert cases.n == 500


def test_torch_tensors_in_and_out(rng):
    torch = pytest.importorskip("torch")
    a = torch.from_numpy(values(rng, (4, 32), np.float32)).to(torch.bfloat16)
    b = torch.from_numpy(values(rng, (32, 3), np.float32)).to(torch.bfloat16)
    d = fplab.ref.gemm(a, b, "acc=binary32 out=bfloat16")
    assert d.dtype == torch.bfloat16 and d.shape == (4, 3)
    want = fplab.ref.gemm(a.view(torch.int16).numpy().view(np.uint16),
                          b.view(torch.int16).numpy().view(np.uint16),
                          "acc=binary32 out=bfloat16", in_fmt="bfloat16")
    assert np.array_equal(d.view(torch.int16).numpy().view(np.uint16), want)
    s = fplab.ref.sum(a)
    assert s.dtype == torch.float32 and s.shape == (4,)


def test_model_lines_and_keywords(cli, tmp_path):
    default = fplab.Model()
    line = str(default)
    assert line.startswith("in=binary32 acc=binary32 acc-rm=rne products=rounded")
    x = np.zeros((1, 4), np.float32)
    assert run_ref(cli, str(tmp_path), "sum", [x], "")[2] == line
    m = fplab.Model(acc="bfloat16", acc_rm="rtz", order="pairwise:4",
                    products="fused", ftz=True, seed=3, in_="binary16")
    assert m == fplab.Model("acc=bfloat16 acc-rm=rtz order=pairwise:4 "
                            "products=fused ftz=1 seed=3 in=binary16")
    assert m.acc == "bfloat16" and m.acc_rm == "rtz" and m.in_ == "binary16"
    assert fplab.Model(str(m)) == m and fplab.Model(m) == m
    assert fplab.Model("order=numpy", out="binary16").out == "binary16"
    assert repr(m).startswith("fplab.Model('in=binary16 acc=bfloat16")
    with pytest.raises(ValueError, match="fplab.Model: unknown key 'acc_rm'|acc_rm"):
        fplab.Model("acc_rm=rne")
    with pytest.raises(ValueError, match="fplab.Model"):
        fplab.Model(order="zigzag")
    with pytest.raises(AttributeError):
        m.nosuchkey


def test_ref_errors(rng):
    x = values(rng, (3, 4), np.float16)
    with pytest.raises(ValueError, match="the model says in=binary32 but x holds binary16"):
        fplab.ref.sum(x, "in=binary32")
    with pytest.raises(ValueError, match=r"a has shape \(3, 4\) but b has shape \(4, 3\)"):
        fplab.ref.dot(x, x.T)
    with pytest.raises(ValueError, match="gives K = 4 .* gives K = 3"):
        fplab.ref.gemm(x, values(rng, (3, 2), np.float16))
    with pytest.raises(ValueError, match="is a scalar"):
        fplab.ref.sum(np.float32(1.0))
    with pytest.raises(ValueError, match="beta needs c"):
        fplab.ref.gemm(x, x.T, beta=1.0)
    with pytest.raises(TypeError, match="uint16 codes: name their format"):
        fplab.ref.sum(np.zeros((2, 2), np.uint16))
    with pytest.raises(ValueError, match="model: "):
        fplab.ref.sum(x, "order=tree:(0+1)")
