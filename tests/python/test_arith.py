"""fplab.add, sub, mul, div, fma, sqrt: against `fplab calc` (value and
flags, element by element, modes and NaN presets), numpy's float16 and
torch's bfloat16 arithmetic (both correctly rounded: computed in a format
of more than twice the precision, then rounded once to nearest even)."""
import numpy as np
import pytest

import fplab
from test_round import flag_bits, same_bits

OPS = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "sqrt": 1}
FORMATS = ["binary16", "bfloat16", "binary32", "fp8-e4m3", "fp8-e5m2",
           "float6_e2m3fn", "ieee:3:4", "p3109:p3"]


def codes(rng, fmt, n):
    f = fplab.Format(fmt)
    t = np.uint8 if f.bits <= 8 else np.uint16 if f.bits <= 16 else np.uint32
    c = rng.integers(0, 1 << f.bits, n, dtype=np.uint64).astype(t)
    if f.bits > 8:   # mostly ordinary values: the exponent field in the middle
        c[: n // 2] = (fplab.encode(rng.standard_normal(n // 2) * 4, fmt))
    return c


@pytest.mark.parametrize("fmt", FORMATS)
def test_against_fplab_calc(fmt, cli, rng, cases):
    f = fplab.Format(fmt)
    digits = -(-f.bits // 4)
    modes = ["rne", "rtz", "rup", "rdn", "rna", "rto", "sr"]
    k = 0
    for op, arity in OPS.items():
        for rm in (modes[k % 7], modes[(k + 3) % 7]):
            k += 1
            ops = [codes(rng, fmt, 4) for _ in range(arity)]
            seed = 11 if rm == "sr" else None
            nan = "cuda" if k % 3 == 0 else None
            fn = getattr(fplab, op)
            r, each, total = fn(*ops, fmt, rm, seed=seed, nan=nan,
                                return_flags=True)
            assert r.dtype == ops[0].dtype and each.dtype == np.uint8
            want_total = 0
            for i in range(4):
                args = ["calc", fmt, op] + ["bits:0x%x" % int(o[i]) for o in ops]
                args += ["--rm", rm] + (["--seed", seed, "--index", i] if seed else [])
                args += ["--nan", nan] if nan else []
                out = cli(*args).stdout.split()
                assert int(r[i]) == int(out[0], 16), (fmt, op, rm, i, args, out)
                assert "%#0*x" % (digits + 2, int(r[i])) == out[0]
                assert int(each[i]) & 0x1F == flag_bits(out[-1]), (fmt, op, rm, i)
                want_total |= flag_bits(out[-1])
                cases.add()
            assert int(total) == want_total
    assert cases.n == 4 * 2 * len(OPS)


def f16_all(rng, n):
    return rng.integers(0, 1 << 16, n, dtype=np.uint64).astype(np.uint16).view(np.float16)


def test_against_numpy_float16(rng, cases):
    a, b = f16_all(rng, 1 << 17), f16_all(rng, 1 << 17)
    with np.errstate(all="ignore"):
        for op, want in (("add", a + b), ("sub", a - b), ("mul", a * b),
                         ("div", a / b)):
            got = getattr(fplab, op)(a, b)
            assert got.dtype == np.float16 and same_bits(got, want), op
            cases.add(a.size)
        got = fplab.sqrt(a)
        assert same_bits(got, np.sqrt(a))
        cases.add(a.size)
        # the same values held in float32, the format named
        got32 = fplab.add(a.astype(np.float32), b.astype(np.float32), "binary16")
        assert same_bits(got32, (a + b).astype(np.float32))
        cases.add(a.size)
    assert cases.n == 6 * a.size


def test_against_torch_bfloat16(rng, cases):
    torch = pytest.importorskip("torch")
    a = torch.from_numpy(rng.integers(0, 1 << 16, 1 << 17, dtype=np.uint64)
                         .astype(np.uint16).view(np.int16)).view(torch.bfloat16)
    b = torch.from_numpy(rng.integers(0, 1 << 16, 1 << 17, dtype=np.uint64)
                         .astype(np.uint16).view(np.int16)).view(torch.bfloat16)
    for op, want in (("add", a + b), ("sub", a - b), ("mul", a * b),
                     ("div", a / b)):
        got = getattr(fplab, op)(a, b)
        assert got.dtype == torch.bfloat16 and got.shape == a.shape
        assert same_bits(got.float().numpy(), want.float().numpy()), op
        cases.add(a.numel())
    assert cases.n == 4 * a.numel()


def test_flags_broadcast_scalars(cases):
    one = np.float32([1.0, 1.0, 65504.0])
    r, each, total = fplab.add(one, np.float32(2.0 ** -11), "binary16",
                               return_flags=True)
    assert list(r) == [1.0, 1.0, 65504.0]
    assert list(each) == [fplab.Flags.INEXACT | fplab.Flags.TERN_DOWN] * 2 + \
        [fplab.Flags.INEXACT | fplab.Flags.TERN_DOWN]
    assert total == fplab.Flags.INEXACT
    r, each, total = fplab.mul(65504.0, 2.0, "binary16", return_flags=True)
    assert r == float("inf") and total == fplab.Flags.OVERFLOW | fplab.Flags.INEXACT
    assert fplab.add(1.0, 2.0 ** -11, "fp16", "rup") == 1.0009765625
    assert fplab.sqrt(-1.0, "fp16", nan="cuda", return_flags=True)[2] == fplab.Flags.INVALID
    x = np.float16([[1.0], [2.0]])
    assert fplab.mul(x, np.float16([1.0, 3.0, 0.5])).shape == (2, 3)
    assert fplab.fma(np.float32([2.0]), 3.0, 1.0, "bf16")[0] == 7.0
    cases.add(7)
    assert cases.n == 7


def test_errors():
    with pytest.raises(ValueError, match=r"fplab.add: b\[1\] \(flat index\) is not "
                                         r"a bfloat16 value: round it first"):
        fplab.add(np.float32([1, 1]), np.float32([1, 0.1]), "bfloat16")
    with pytest.raises(ValueError, match="the shapes .* do not broadcast"):
        fplab.add(np.zeros(3, np.float32), np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="different dtypes"):
        fplab.add(np.zeros(3, np.float32), np.zeros(3, np.float64))
    with pytest.raises(ValueError, match="binary16 arrays cannot hold every binary32"):
        fplab.add(np.zeros(3, np.float16), np.zeros(3, np.float16), "binary32")
    with pytest.raises(ValueError, match="unknown rounding mode 'upward'"):
        fplab.div(1.0, 3.0, "fp16", "upward")
    with pytest.raises(ValueError, match="unknown NaN preset 'amd'"):
        fplab.div(1.0, 3.0, "fp16", nan="amd")
    with pytest.raises(ValueError, match="seed= applies to stochastic rounding"):
        fplab.div(1.0, 3.0, "fp16", seed=3)
