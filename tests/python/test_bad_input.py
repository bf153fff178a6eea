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


# ---- stochastic rounding with supplied bits, saturation, reveal options -------
RB = np.arange(8, dtype=np.uint8).reshape(2, 4)


@pytest.mark.parametrize("call, exc, frag", [
    # the random bits: dtype, shape, sign, width
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB.astype(np.float32), nbits=3),
     TypeError, "fplab.round: rbits is float32: the random bits are an unsigned"),
    (lambda: fplab.encode(X, "bf16", "srb", rbits=RB.astype(bool), nbits=3),
     TypeError, "fplab.encode: rbits is bool"),
    (lambda: fplab.round(X, "bf16", "srb", rbits="0101", nbits=3), TypeError,
     "rbits is a str"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB.T, nbits=3), ValueError,
     r"rbits has shape \(4, 2\), x \(2, 4\): one random word per element"),
    (lambda: fplab.add(X, X, "binary32", "srb", rbits=RB[0], nbits=3), ValueError,
     r"fplab.add: rbits has shape \(4,\), the operands' broadcast shape is \(2, 4\)"),
    (lambda: fplab.quantize(X, "fp8-e4m3-tensor", rbits=RB[0], nbits=3), ValueError,
     "fplab.quantize: rbits holds 4 values, x 8"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB.astype(np.int16) - 1, nbits=3),
     ValueError, r"rbits\[0\] \(flat index\) = -1 is negative"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB, nbits=2), ValueError,
     r"rbits\[4\] \(flat index\) = 4 does not fit in nbits=2 bits"),
    (lambda: fplab.round(1.5, "bf16", "srb", rbits=-3, nbits=2), ValueError,
     "rbits=-3: the random bits are an unsigned integer below 2..64"),
    # nbits, variant, sr_hw
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB, nbits=0), ValueError,
     "nbits=0: the random bits are 1 .. 64 bits wide"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB, nbits=65), ValueError,
     "nbits=65: the random bits are 1 .. 64 bits wide"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB, nbits=3.0), TypeError,
     "nbits is an integer, not float"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB), ValueError,
     "rm='srb' needs nbits=N"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB, nbits=3, variant="odd"),
     ValueError, "variant='odd': not stochastic, stochastic_odd, fast or fastest"),
    (lambda: fplab.round(X, "bf16", "srb", rbits=RB, nbits=3, variant=2), TypeError,
     "variant is a name, not int"),
    (lambda: fplab.encode(X, "fp8-e4m3", "srb", rbits=RB, sr_hw="ptx-cvt.rs.e9m9x4"),
     ValueError, "sr_hw: unknown preset 'ptx-cvt.rs.e9m9x4'"),
    (lambda: fplab.encode(X, "fp8-e5m2", "srb", rbits=RB, sr_hw="ptx-cvt.rs.e4m3x4"),
     ValueError, "sr_hw='ptx-cvt.rs.e4m3x4' rounds into fp8-e4m3, not fp8-e5m2"),
    (lambda: fplab.encode(X, "fp8-e4m3", "srb", rbits=RB, nbits=3,
                          sr_hw="ptx-cvt.rs.e4m3x4"),
     ValueError, "sets the bit count and the variant: drop nbits= and variant="),
    # rm and the bits must go together
    (lambda: fplab.round(X, "bf16", "srb"), ValueError,
     "rm='srb' rounds with supplied random bits: give rbits="),
    (lambda: fplab.round(X, "bf16", rbits=RB, nbits=3), ValueError,
     "rbits=, nbits=, variant= and sr_hw= go with rm='srb'.*rm is 'rne'"),
    (lambda: fplab.round(X, "bf16", "srb", nbits=3), ValueError,
     "nbits=, variant= and sr_hw= go with rbits="),
    (lambda: fplab.round(X, "bf16", "srb", seed=3, rbits=RB, nbits=3), ValueError,
     "seed= applies to stochastic rounding .rm='sr'.; rm is 'srb'"),
    (lambda: fplab.quantize(X, "fp8-e4m3-tensor:sr", rbits=RB, nbits=3), ValueError,
     "rbits= sets the element rounding; scheme 'fp8-e4m3-tensor:sr' already rounds "
     "with sr"),
    # saturation
    (lambda: fplab.round(X, "bf16", saturate="always"), ValueError,
     "saturate='always': not none, propagate or finite"),
    (lambda: fplab.mul(X, X, "binary32", saturate=1.0), TypeError,
     "saturate is False, True, 'none', 'propagate' or 'finite', not a float"),
    # reveal's options
    (lambda: fplab.reveal(len, "sum", n=8, dtype="float32", validate_calls=-1),
     ValueError, "validate_calls=-1: 0 .no limit. .. 2..30"),
    (lambda: fplab.reveal(len, "sum", n=8, dtype="float32", lengths=[8, 1]),
     ValueError, r"lengths\[1\]: not an integer 3 .. 2..30"),
    (lambda: fplab.reveal(len, "sum", n=8, dtype="float32", lengths=[]),
     ValueError, "lengths: 1 .. 8 lengths, got 0"),
    (lambda: fplab.reveal(len, "sum", n=8, dtype="float32", lengths=9), TypeError,
     "lengths is a list of integers"),
    (lambda: fplab.reveal(len, "dot", n=8, dtype="float32", no_batch=True),
     ValueError, "no_batch applies to gemm"),
])
def test_sr_bits_saturate_reveal_options(call, exc, frag):
    with pytest.raises(exc, match=frag):
        call()


def test_sr_bits_odd_but_valid(cases):
    """Signed integer bits without negatives, torch int64 holding 64 random
    bits, a strided rbits view, 0-d and empty arrays: the plain answer."""
    x = np.float32([1.1, -2.3, 3e-3, 7.7])
    r = np.uint64([0, 5, 1 << 40, (1 << 64) - 1])
    want = fplab.encode(x, "bf16", "srb", rbits=r, nbits=64)
    # numpy int64 (rng.integers' default) without negatives, and a list
    assert np.array_equal(fplab.encode(x, "bf16", "srb", rbits=np.int64([0, 5, 1 << 40, 1]),
                                       nbits=64)[:3], want[:3])
    assert np.array_equal(fplab.encode(x, "bf16", "srb", rbits=[0, 5, 1 << 40, (1 << 64) - 1],
                                       nbits=64), want)
    big = np.zeros(8, np.uint64)
    big[::2] = r
    assert np.array_equal(fplab.encode(x, "bf16", "srb", rbits=big[::2], nbits=64), want)
    assert fplab.encode(np.float32(1.1), "bf16", "srb", rbits=np.uint8(3), nbits=2).shape == ()
    assert fplab.round(np.zeros(0, np.float32), "bf16", "srb", rbits=np.zeros(0, np.uint8),
                       nbits=2).shape == (0,)
    cases.add(4)
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(r.view(np.int64).copy())
    assert np.array_equal(fplab.encode(torch.from_numpy(x), "bf16", "srb", rbits=t,
                                       nbits=64).numpy().view(np.uint16), want)
    cases.add()
    assert cases.n == 5


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
