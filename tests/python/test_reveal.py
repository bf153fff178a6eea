"""fplab.reveal with Python kernels in process: the model `fplab reveal`
finds for the same kernel run as a command, models that replay numpy and
PyTorch kernels bit for bit on fresh inputs through fplab.ref, batched
(3-D) calls, and kernels that raise, answer wrongly or change their mind."""
import os
import sys

import numpy as np
import pytest

import fplab

FAST = dict(validate=20000)


def npsum(x):
    return np.sum(x, axis=-1)


def test_numpy_sum_same_model_as_the_cli(cli, tmp_path, cases):
    r = fplab.reveal(npsum, "sum", n=64, dtype="float32", **FAST)
    assert r.ok and r.status == "found" and r.model is not None
    assert r.model == fplab.Model("order=numpy in=binary32")
    assert r.cases == r.agreed >= 20000
    assert "validation: %d of %d cases bit-identical" % (r.cases, r.cases) in r.report
    assert r.report.startswith("fplab.reveal: kernel: npsum\n")
    assert r.report.splitlines()[-2] == "model: %s" % r.model
    k = os.path.join(str(tmp_path), "npsum.py")
    with open(k, "w") as fp:
        fp.write("import sys\nimport numpy as np\n"
                 "np.save(sys.argv[2], np.sum(np.load(sys.argv[1]), axis=-1))\n")
    mo = os.path.join(str(tmp_path), "np.model")
    c = cli("reveal", "sum", "--n", 64, "--dtype", "float32", "--validate", 20000,
            "--model-out", mo, "--", sys.executable, k, "{in}", "{out}")
    assert c.returncode == 0, c.stderr
    assert "model: %s" % r.model in c.stdout.splitlines()
    # the findings are the same lines, whoever ran the kernel
    py_lines = r.report.splitlines()[1:-1]
    cli_lines = [l for l in c.stdout.splitlines()[1:] if not l.startswith(("wrote", "kernel calls"))]
    mask = lambda ls: [l.rsplit(",", 1)[0] if l.startswith("validation inputs") else l for l in ls]
    assert mask(py_lines) == mask(cli_lines)
    cases.add(len(py_lines))
    assert cases.n > 20


def replay(model, fn, op, rng, *shapes, dtype):
    """The model against the kernel on fresh inputs: element count."""
    torch = pytest.importorskip("torch")
    args = [torch.from_numpy(rng.standard_normal(s).astype(np.float32)).to(dtype)
            for s in shapes]
    got = fn(*args)
    ref = getattr(fplab.ref, op)(*args, model)
    assert got.dtype == ref.dtype
    assert got.view(torch.int16 if dtype == torch.bfloat16 else torch.int32).numpy().tobytes() \
        == ref.view(torch.int16 if dtype == torch.bfloat16 else torch.int32).numpy().tobytes()
    return got.numel()


def test_torch_matmul_bfloat16_replays(rng, cases):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)

    def mm(a, b):
        return torch.matmul(a, b)
    r = fplab.reveal(mm, "gemm", m=16, k=64, n=16, dtype=torch.bfloat16, **FAST)
    assert r.ok, r.report
    assert r.model.in_ == "bfloat16" and r.model.out == "bfloat16"
    cases.add(replay(r.model, mm, "gemm", rng, (16, 64), (64, 16),
                     dtype=torch.bfloat16))
    assert cases.n == 256


def test_torch_sum_float32_replays(rng, cases):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)

    def tsum(x):
        return torch.sum(x, dim=-1)
    r = fplab.reveal(tsum, "sum", n=100, dtype=torch.float32, **FAST)
    assert r.ok, r.report
    cases.add(replay(r.model, tsum, "sum", rng, (500, 100), dtype=torch.float32))
    assert cases.n == 500


def test_numpy_dot_and_batched_calls(cases):
    shapes = []

    def dot(a, b):
        shapes.append(a.shape)
        return np.sum(a * b, axis=-1)
    r = fplab.reveal(dot, "dot", n=32, dtype=np.float32, batch=2, **FAST)
    assert r.ok, r.report
    assert r.model.products == "rounded" and r.model.order == "numpy"
    assert all(len(s) == 3 and s[0] == 2 for s in shapes) and len(shapes) == r.calls
    got = []

    def gemm(a, b):
        got.append(a.ndim)
        return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    r = fplab.reveal(gemm, "gemm", m=8, k=24, n=8, dtype="float32", batch=3, **FAST)
    assert r.ok and set(got) == {3}, r.report
    assert r.model.order == "exact" or "binary64" in str(r.model)
    cases.add(len(shapes) + len(got))
    assert cases.n == len(shapes) + len(got) > 4


def test_kernel_errors_propagate():
    class Boom(RuntimeError):
        pass

    def raises(x):
        raise Boom("the kernel broke")
    with pytest.raises(Boom, match="the kernel broke"):
        fplab.reveal(raises, "sum", n=16, dtype="float32", **FAST)
    with pytest.raises(ValueError, match=r"the kernel's result has shape \(\d+, 1\), "
                                         r"expected \(\d+,\) \(call 1\)"):
        fplab.reveal(lambda x: np.sum(x, axis=-1, keepdims=True), "sum", n=16,
                     dtype="float32", **FAST)
    with pytest.raises(TypeError, match="the kernel's result has dtype int32"):
        fplab.reveal(lambda x: np.sum(x, axis=-1).astype(np.int32), "sum", n=16,
                     dtype="float32", **FAST)
    with pytest.raises(TypeError, match="the kernel.s result has dtype <U2"):
        fplab.reveal(lambda x: "no", "sum", n=16, dtype="float32", **FAST)
    with pytest.raises(TypeError, match="fn must be callable"):
        fplab.reveal(3, "sum", n=16, dtype="float32")
    with pytest.raises(ValueError, match="unknown operation 'prod'"):
        fplab.reveal(npsum, "prod", n=16, dtype="float32")
    with pytest.raises(ValueError, match="the inputs are float32, float16 or bfloat16"):
        fplab.reveal(npsum, "sum", n=16, dtype="float64")
    with pytest.raises(ValueError, match="gemm needs m"):
        fplab.reveal(npsum, "gemm", n=16, dtype="float32")


def test_nondeterministic_kernel_is_a_result():
    rng = np.random.default_rng(3)

    def noisy(x):
        s = np.sum(x, axis=-1)
        s.view(np.uint32)[rng.integers(0, s.size)] ^= 1
        return s
    r = fplab.reveal(noisy, "sum", n=16, dtype="float32", **FAST)
    assert not r.ok and r.status == "nondeterministic" and r.model is None
    assert "nondeterministic" in r.report or "differ" in r.report
    assert not bool(r)
