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
    # the closing lines and the model file are the library's text in both
    # (fl_reveal_*_text): the same file but for the kernel's name
    last = [l for l in c.stdout.splitlines() if l.startswith("kernel calls: ")]
    assert len(last) == 1 and r.report.splitlines()[-1].startswith("kernel calls: %d (" % r.calls)
    saved = os.path.join(str(tmp_path), "py.model")
    r.save(saved)
    with open(saved) as fp:
        py_file = fp.read().splitlines()
    with open(mo) as fp:
        cli_file = fp.read().splitlines()
    assert py_file[1] == "# kernel: fplab.reveal(npsum)"
    assert py_file[:1] + py_file[2:] == cli_file[:1] + cli_file[2:]
    assert ["# " + l for l in r.notes] == py_file[2:-1]
    assert r.notes[0] == "sum: 64 terms per output element, float32 in, binary32 out"
    assert r.notes[1] == "validation: %d of %d cases bit-identical (seed 1)" % (r.cases, r.cases)
    assert r.notes[2].startswith("order: a family") and r.order_travels
    assert r.lengths[0] == 64 and len(r.lengths) >= 2 and r.nan_only == 0
    assert fplab.Model(open(saved).read().splitlines()[-1]) == r.model
    cases.add(len(py_file))
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


def test_reveal_options_validate_calls_lengths_no_batch(cases):
    """validate_calls, lengths and no_batch as `fplab reveal`'s
    --validate-calls, --lengths and --no-batch: every call 2-D, at most 3
    validation calls, the tree also revealed at k = 33 and 40."""
    shapes = []

    def gemm(a, b):
        shapes.append(a.shape)
        return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    r = fplab.reveal(gemm, "gemm", m=8, k=24, n=8, dtype="float32", no_batch=True,
                     validate_calls=3, lengths=[33, 40], **FAST)
    assert r.ok, r.report
    assert all(len(s) == 2 for s in shapes) and r.batch_max == 0
    assert 1 <= r.valid_calls <= 3 and r.cases <= 3 * 64
    assert r.lengths[:1] == [24] and {33, 40} <= set(r.lengths)
    assert r.notes[0] == "gemm: A 8 x 24, B 24 x 8, float32 in, binary32 out"
    assert r.notes[2].startswith("order: ")
    cases.add(len(shapes))
    assert cases.n == r.calls


def canonical_nan_sum(x):
    """numpy's float32 sum, but a NaN result is the quiet NaN with the sign
    kept and the payload dropped (as torch.sum on float16 does)."""
    s = np.sum(x, axis=-1)
    u = s.view(np.uint32)
    nan = np.isnan(s)
    u[nan] = (u[nan] & 0x80000000) | 0x7FC00000
    return s


def payload_nan_sum(x):
    """A NaN result whose payload no NaN rule gives (a function of the
    row): reveal writes nan=any and counts those cases."""
    s = np.sum(x, axis=-1)
    u = s.view(np.uint32)
    nan = np.isnan(s)
    rows = x.reshape(-1, x.shape[-1]).view(np.uint32).sum(axis=-1, dtype=np.uint32)
    u.reshape(-1)[nan.reshape(-1)] = 0x7F800000 | (1 + rows.reshape(-1)[nan.reshape(-1)] % 0x3FFFFF)
    return s


def test_reveal_nan_rules(cases):
    """The NaN rule found (nan=sign: sign kept, payload dropped), and a
    kernel no rule reproduces: nan=any, reported in .nan_only, the notes and
    the model file."""
    r = fplab.reveal(canonical_nan_sum, "sum", n=32, dtype="float32", **FAST)
    assert r.ok and r.model.nan == "sign" and r.nan_only == 0, r.report
    cases.add()
    r = fplab.reveal(payload_nan_sum, "sum", n=32, dtype="float32", **FAST)
    assert r.ok and r.model.nan == "any", r.report
    assert 0 < r.nan_only < r.agreed == r.cases
    assert "%d a NaN where the kernel has a NaN (nan=any" % r.nan_only in r.notes[1]
    assert "# " + r.notes[1] in r.model_file.splitlines()
    # the model replays the kernel with fplab.ref (NaN for NaN)
    x = np.random.default_rng(5).standard_normal((300, 32)).astype(np.float32)
    x[::7, 3] = np.nan
    got, want = payload_nan_sum(x), fplab.ref.sum(x, r.model)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    # compare honours nan=any: payloads checked, but not where the model
    # leaves them open
    assert fplab.compare(got, want, nan_payload=True, model=r.model).ok
    assert not fplab.compare(got, want, nan_payload=True).ok
    cases.add(x.shape[0])
    assert cases.n == 301


def test_reveal_option_errors(tmp_path):
    with pytest.raises(ValueError, match="validate_calls=-1"):
        fplab.reveal(npsum, "sum", n=16, dtype="float32", validate_calls=-1)
    with pytest.raises(ValueError, match=r"lengths\[0\]: not an integer 3"):
        fplab.reveal(npsum, "sum", n=16, dtype="float32", lengths=[2])
    with pytest.raises(ValueError, match="lengths: 1 .. 8 lengths, got 9"):
        fplab.reveal(npsum, "sum", n=16, dtype="float32", lengths=range(10, 19))
    with pytest.raises(TypeError, match="lengths is a list of integers, not int"):
        fplab.reveal(npsum, "sum", n=16, dtype="float32", lengths=17)
    with pytest.raises(ValueError, match="no_batch applies to gemm"):
        fplab.reveal(npsum, "sum", n=16, dtype="float32", no_batch=True)
    with pytest.raises(ValueError, match="no_batch=True and batch=B contradict"):
        fplab.reveal(npsum, "gemm", m=4, k=8, n=4, dtype="float32", no_batch=True,
                     batch=2)
    bad = fplab.reveal(lambda x: np.sum(x, axis=-1) + np.float32(
        np.random.default_rng().random()), "sum", n=16, dtype="float32", **FAST)
    assert not bad.ok and bad.model_file is None and bad.notes == []
    with pytest.raises(ValueError, match="no model to save"):
        bad.save(str(tmp_path / "m"))
    assert not os.path.exists(str(tmp_path / "m"))
