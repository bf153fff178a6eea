"""The Python API's bad-input table (docs/reliability.md): every row is a
test here.  Bad input is a ValueError or TypeError that says what was
wrong and where; odd but valid input (non-contiguous, negative strides,
byte-swapped, 0-d, empty, NaN and infinity everywhere) gives the same
answer as its plain equivalent; nothing crashes the interpreter."""
import numpy as np
import pytest

import fplab
from test_round import same_bits

X = np.float32([[1.5, -2.25, 3e-5, 7.0], [0.1, 65504.0, -0.0, 1e-9]])


# ---- wrong dtype ----------------------------------------------------------
@pytest.mark.parametrize("bad, frag", [
    (np.int32([1, 2]), "has dtype int32"),
    (np.complex64([1j]), "has dtype complex64"),
    (np.array([True]), "has dtype bool"),
    (np.array(["a"]), "has dtype <U1"),
    ({"a": 1}, "is a dict"),
])
def test_wrong_dtype(bad, frag):
    with pytest.raises(TypeError, match=frag):
        fplab.round(bad, "bf16")
    with pytest.raises(TypeError, match=frag):
        fplab.encode(bad, "bf16")
    with pytest.raises(TypeError, match=frag):
        fplab.ref.sum(bad)


def test_wrong_codes_dtype_and_missing_format():
    with pytest.raises(TypeError, match="uint16 codes: name their format"):
        fplab.round(np.uint16([1]), "fp8-e4m3")
    with pytest.raises(TypeError, match="the codes of bfloat16 .16 bits. are uint16"):
        fplab.round(np.uint8([1]), "fp8-e4m3", in_fmt="bfloat16")
    with pytest.raises(TypeError, match="out has another dtype"):
        fplab.round(X, "bf16", out=np.zeros(X.shape))


def test_torch_wrong_dtype():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="torch tensor of torch.complex64"):
        fplab.round(torch.zeros(2, dtype=torch.complex64), "bf16")
    with pytest.raises(TypeError, match="torch tensor of torch.bool"):
        fplab.compare(torch.zeros(2, dtype=torch.bool), torch.zeros(2))


# ---- non-contiguous, negative strides, byte order ---------------------------
def test_strided_views_give_the_plain_answer(cases):
    big = np.float32(np.arange(48).reshape(6, 8) * 0.37 - 5)
    views = [big[::2, ::3], big[::-1, ::-1], big.T, big.astype(">f4"),
             np.asfortranarray(big)]
    for v in views:
        c = np.ascontiguousarray(v, dtype=np.float32)
        assert same_bits(fplab.round(v, "fp8-e4m3"), fplab.round(c, "fp8-e4m3"))
        assert np.array_equal(fplab.encode(v, "bf16"), fplab.encode(c, "bf16"))
        r = fplab.round(c, "bf16")
        assert same_bits(fplab.add(fplab.round(v, "bf16"), r[::-1, ::-1][::-1, ::-1], "bf16"),
                         fplab.add(r, r, "bf16"))
        assert same_bits(fplab.ref.sum(v), fplab.ref.sum(c))
        assert fplab.compare(v, c).ok
        assert same_bits(fplab.quantize(v, "fp8-e4m3-tensor")[0],
                         fplab.quantize(c, "fp8-e4m3-tensor")[0])
        assert fplab.hist(v, "fp16").counts.tolist() == fplab.hist(c, "fp16").counts.tolist()
        cases.add()
    assert cases.n == len(views)


def test_read_only_and_misaligned_out():
    y = X.copy()
    y.flags.writeable = False
    with pytest.raises(ValueError, match="out must be a writeable"):
        fplab.round(X, "bf16", out=y)
    with pytest.raises(ValueError, match="out must be a writeable"):
        fplab.round(X, "bf16", out=np.zeros((4, 2), np.float32).T)
    with pytest.raises(ValueError, match="out has another shape"):
        fplab.round(X, "bf16", out=np.zeros(8, np.float32))
    r = fplab.round(X[::-1], "bf16")       # a copy of x is rounded: x intact
    assert same_bits(r, fplab.round(X, "bf16")[::-1])


# ---- 0-d and empty ---------------------------------------------------------
def test_zero_d_and_empty(cases):
    z = np.float32(2.5)
    assert fplab.round(z, "fp4-e2m1").shape == () and float(fplab.round(z, "fp4-e2m1")) == 2.0
    assert fplab.encode(np.float64(1.0), "bf16").shape == ()
    assert fplab.decode(np.uint8(0x38), "fp8-e4m3").shape == ()
    assert fplab.add(z, z, "bf16").shape == ()
    assert fplab.compare(z, z).ok
    e = np.zeros((0, 4), np.float32)
    assert fplab.round(e, "bf16").shape == (0, 4)
    assert fplab.encode(e, "fp8-e4m3").shape == (0, 4)
    assert fplab.add(e, e, "bf16").shape == (0, 4)
    assert fplab.ref.sum(e).shape == (0,)
    assert fplab.ref.sum(np.zeros((3, 0), np.float32)).tolist() == [0.0, 0.0, 0.0]
    assert fplab.compare(e, e).ok
    with pytest.raises(ValueError, match="is a scalar"):
        fplab.ref.sum(z)
    with pytest.raises(ValueError, match="holds no values"):
        fplab.quantize(e, "mxfp8-e4m3")
    with pytest.raises(ValueError, match="holds no values"):
        fplab.hist(e, "fp16")
    cases.add(14)
    assert cases.n == 14


# ---- shape mismatches --------------------------------------------------------
def test_shape_mismatches():
    with pytest.raises(ValueError, match="do not broadcast"):
        fplab.mul(X, X[:, :3], "bf16")
    with pytest.raises(ValueError, match="shapes differ"):
        fplab.compare(X, X.T)
    with pytest.raises(ValueError, match="a has shape .2, 4. but b has shape .4, 2."):
        fplab.ref.dot(X, X.T)
    with pytest.raises(ValueError, match="gives K = 4 but b .* gives K = 2"):
        fplab.ref.gemm(X, X)
    with pytest.raises(ValueError, match=r"c has shape \(2, 4\) but the output is \(2, 2\)"):
        fplab.ref.gemm(X, X.T, c=X)
    with pytest.raises(ValueError, match="A and B are matrices"):
        fplab.ref.gemm(X[0], X.T)
    with pytest.raises(ValueError, match="not a multiple of the block size 32"):
        fplab.quantize(X, "mxfp4-e2m1")
    with pytest.raises(ValueError, match="the exact result exact is .*shapes differ"):
        fplab.compare(X, X, exact=X.T)


# ---- unknown names -----------------------------------------------------------
@pytest.mark.parametrize("call, exc, frag", [
    (lambda: fplab.round(X, "bf17"), ValueError, "fplab.round: unknown format 'bf17'"),
    (lambda: fplab.round(X, "bf16", "nearest-odd"), ValueError,
     "unknown rounding mode 'nearest-odd'"),
    (lambda: fplab.round(X, "bf16", 3), TypeError, "rm is a rounding mode's name"),
    (lambda: fplab.add(X, X, "bf16", nan="power"), ValueError, "unknown NaN preset 'power'"),
    (lambda: fplab.round(X, "bf16", tininess="never"), ValueError, "tininess is 'after'"),
    (lambda: fplab.round(X, "bf16", "sr", seed=-1), ValueError, "seed must be"),
    (lambda: fplab.round(X, "bf16", threads=-2), ValueError, "threads=-2"),
    (lambda: fplab.quantize(X, "mxfp8-e4m4"), ValueError, "fplab.quantize: scheme"),
    (lambda: fplab.hist(X, "fp16", scaling=["nope"]), ValueError, r"scaling\[0\]"),
    (lambda: fplab.Model("order=sideways"), ValueError, "fplab.Model: "),
    (lambda: fplab.Model(colour="red"), ValueError, "fplab.Model: .*colour"),
    (lambda: fplab.ref.sum(X, "acc=binary17"), ValueError, "fplab.ref.sum: model: "),
    (lambda: fplab.reveal(len, "sort", n=4, dtype="float32"), ValueError,
     "unknown operation 'sort'"),
    (lambda: fplab.reveal(len, "sum", n=4, dtype="int8"), ValueError, "unknown format 'int8'"),
])
def test_unknown_names(call, exc, frag):
    with pytest.raises(exc, match=frag):
        call()


# ---- NaN and infinity everywhere ---------------------------------------------
def test_nan_and_inf_everywhere(cases):
    for v in (np.nan, np.inf, -np.inf):
        x = np.full((4, 64), v, np.float32)
        for fmt in ("bf16", "fp8-e4m3", "float4_e2m1fn", "float8_e8m0fnu", "fp16"):
            c = fplab.encode(x, fmt)
            assert c.shape == x.shape
            d = fplab.decode(c, fmt)
            assert d.shape == x.shape
            cases.add()
        r = fplab.round(x, "fp8-e4m3", saturate=True)    # no infinity: the max
        assert np.isnan(r).all() if np.isnan(v) else (np.abs(r) == 448).all()
        r = fplab.round(x, "fp8-e5m2", saturate=True)    # infinities stay
        assert same_bits(r, x)
        assert np.isnan(fplab.add(x, x, "bf16")).all() == (np.isnan(v) or False)
        s = fplab.ref.sum(x)
        assert np.isnan(s).all() or np.isinf(s).all()
        assert fplab.compare(x, x).ok
        q = fplab.quantize(x, "mxfp8-e4m3")
        assert q.stats["nan_blocks"] == 8 and np.isnan(q[0]).all()
        h = fplab.hist(x, "fp16")
        assert h.live == 0 and h.nonfinite == x.size and h.window is None
        cases.add()
    assert cases.n == 3 * 6


# ---- reveal: the callable misbehaves (tests/python/test_reveal.py) -------------
def test_reveal_callable_rows_are_tested():
    import test_reveal
    assert callable(test_reveal.test_kernel_errors_propagate)
    assert callable(test_reveal.test_nondeterministic_kernel_is_a_result)
