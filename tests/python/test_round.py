"""fplab.round, encode and decode: against `fplab calc` (the core's scalar
conversion, every mode, stochastic rounding by index), numpy's float16
and torch's bfloat16 conversions, and themselves across thread counts and
array layouts."""
import numpy as np
import pytest

import fplab

FORMATS = ["binary16", "bfloat16", "fp8-e4m3", "fp8-e5m2", "float6_e2m3fn",
           "float4_e2m1fn", "float8_e8m0fnu", "p3109:p3", "ieee:3:4"]
MODES = ["rne", "rtz", "rdn", "rup", "rna", "rto", "sr"]
FLAG_NAMES = {"inexact": 1, "underflow": 2, "overflow": 4, "divbyzero": 8,
              "invalid": 16}


def flag_bits(names):
    return 0 if names == "-" else sum(FLAG_NAMES[n] for n in names.split(","))


def sample(rng, n):
    """float32 values across the formats' ranges, with specials."""
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-30, 20, n))).astype(np.float32)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 448.0, -3.0]
    return x


def calc(cli, fmt, x, rm, seed=None, index=None, extra=()):
    bits = "bits:0x%08x" % int(np.float32(x).view(np.uint32))
    args = ["calc", fmt, "convert", bits, "--from", "binary32", "--rm", rm]
    if rm == "sr":
        args += ["--seed", seed, "--index", index]
    r = cli(*args, *extra)
    assert r.returncode == 0, r.stderr
    code, _, flags = r.stdout.split()
    return int(code, 16), flag_bits(flags)


@pytest.mark.parametrize("fmt", FORMATS)
def test_against_fplab_calc(fmt, cli, rng, cases):
    """Every mode: the bulk rounding (round), the codes (encode) and the
    OR-ed flags equal the CLI's scalar conversion, element by element; sr
    uses the element's index."""
    x = sample(rng, 10)
    for rm in MODES:
        seed = 77 if rm == "sr" else None
        codes, flags = fplab.encode(x, fmt, rm, seed=seed, return_flags=True)
        try:
            vals = fplab.round(x, fmt, rm, seed=seed)
        except ValueError:   # a format float32 arrays cannot hold (e8m0)
            vals = None
        want_flags = 0
        for i, v in enumerate(x):
            code, fl = calc(cli, fmt, v, rm, seed, i)
            assert int(codes[i]) == code, (fmt, rm, i, float(v))
            want_flags |= fl
            if vals is not None:
                d = fplab.decode(int(code), fmt)
                assert (np.isnan(vals[i]) and np.isnan(d)) or \
                    np.float32(d).view(np.uint32) == vals[i].view(np.uint32), \
                    (fmt, rm, i, float(v), vals[i], d)
            cases.add()
        assert int(flags) == want_flags, (fmt, rm)
    assert cases.n == 10 * len(MODES)


def test_saturate_ftz_daz_nan_against_calc(cli, rng, cases):
    x = np.float32([500.0, -1e6, 1e-3, -2e-3, np.inf, 0.0004, 3e-9, np.nan])
    for fmt, kw, extra in (("fp8-e4m3", {"saturate": True}, ["--saturate"]),
                           ("binary16", {"saturate": True}, ["--saturate"]),
                           ("fp8-e5m2", {"ftz": True}, ["--ftz"]),
                           ("binary16", {"daz": True, "ftz": True},
                            ["--daz", "--ftz"]),
                           ("bfloat16", {"nan": "cuda"}, ["--nan", "cuda"]),
                           ("binary16", {"tininess": "before"},
                            ["--tininess", "before"])):
        codes, flags = fplab.encode(x, fmt, return_flags=True, **kw)
        want = 0
        for i, v in enumerate(x):
            code, fl = calc(cli, fmt, v, "rne", extra=extra)
            assert int(codes[i]) == code, (fmt, kw, float(v))
            want |= fl
            cases.add()
        assert int(flags) == want, (fmt, kw)
    assert cases.n == 6 * len(x)


def all_float32(rng, n):
    """Random float32 bit patterns (every class) and their values."""
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def same_bits(a, b):
    """Bit-identical, any NaN matching any NaN."""
    a = np.asarray(a)
    b = np.asarray(b)
    nan = np.isnan(a.astype(np.float64))
    if not np.array_equal(nan, np.isnan(b.astype(np.float64))):
        return False
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]
    return np.array_equal(a.view(u)[~nan], b.view(u)[~nan])


def test_against_numpy_float16(rng, cases):
    x32 = all_float32(rng, 1 << 18)
    with np.errstate(all="ignore"):
        want = x32.astype(np.float16)
        assert same_bits(fplab.round(x32, "float16"), want.astype(np.float32))
        assert same_bits(fplab.encode(x32, "float16").view(np.float16), want)
        x64 = rng.standard_normal(1 << 16) * np.exp2(rng.integers(-30, 20, 1 << 16))
        assert same_bits(fplab.round(x64, np.float16), x64.astype(np.float16).astype(np.float64))
        # float16 arrays in: rounded within float16, dtype kept
        h = want[np.isfinite(want)]
        r = fplab.round(h, "fp8-e5m2")
        assert r.dtype == np.float16
        assert same_bits(r, fplab.round(h.astype(np.float32), "fp8-e5m2").astype(np.float16))
    cases.add(x32.size + x64.size + h.size)


def test_against_torch_bfloat16(rng, cases):
    torch = pytest.importorskip("torch")
    x = all_float32(rng, 1 << 18)
    t = torch.from_numpy(x)
    want = t.to(torch.bfloat16)
    got = fplab.round(t, "bfloat16")
    assert got.dtype == torch.float32
    assert same_bits(got.numpy(), want.float().numpy())
    # bfloat16 tensors in and out, bit for bit against torch's own values
    b = want[torch.isfinite(want)]
    r = fplab.round(b, "fp8-e4m3")
    assert r.dtype == torch.bfloat16 and r.shape == b.shape
    assert same_bits(r.float().numpy(), fplab.round(b.float().numpy(), "fp8-e4m3"))
    codes = fplab.encode(b, "bfloat16")
    assert codes.dtype == torch.int16
    assert np.array_equal(codes.numpy().view(np.uint16), b.view(torch.int16).numpy().view(np.uint16))
    assert same_bits(fplab.decode(codes.numpy().view(np.uint16), "bf16"), b.float().numpy())
    h = torch.from_numpy(x[np.isfinite(x)][:1000]).half()
    assert fplab.round(h, "fp8-e5m2").dtype == torch.float16
    cases.add(x.size + b.numel() + 1000)


@pytest.mark.parametrize("fmt", ["binary16", "fp8-e4m3", "float4_e2m1fn", "bfloat16"])
def test_threads_do_not_change_bits(fmt, rng, cases):
    x = (rng.standard_normal(300001) * 8).astype(np.float32)
    for rm in ("sr", "rne", "rto"):
        seed = 5 if rm == "sr" else None
        r = [fplab.round(x, fmt, rm, seed=seed, threads=t) for t in (1, 2, 3, 0)]
        assert all(same_bits(r[0], q) for q in r[1:])
        e = [fplab.encode(x, fmt, rm, seed=seed, threads=t) for t in (1, 2, 0)]
        assert all(np.array_equal(e[0], q) for q in e[1:])
        d = x.astype(np.float64)
        assert same_bits(fplab.round(d, fmt, rm, seed=seed, threads=1),
                         fplab.round(d, fmt, rm, seed=seed, threads=2))
        # the stream is the element's index: a slice rounded with its offset
        assert same_bits(fplab.round(x[1000:], fmt, rm, seed=seed, offset=1000),
                         r[0][1000:])
        cases.add(x.size)
    assert cases.n == 3 * x.size


@pytest.mark.parametrize("fmt", ["fp8-e4m3", "fp8-e5m2", "float8_e4m3fnuz",
                                 "float6_e3m2fn", "float4_e2m1fn", "float8_e8m0fnu",
                                 "p3109:p4"])
def test_decode_every_code_against_fplab_table(fmt, cli, cases):
    rows = cli("table", fmt).stdout.splitlines()[1:]
    f = fplab.Format(fmt)
    codes = np.arange(1 << f.bits, dtype=np.uint8)
    vals = fplab.decode(codes, fmt)
    assert vals.dtype == np.float32 and len(rows) == codes.size
    for row in rows:
        cols = row.split("\t")
        c, v = int(cols[0], 16), cols[5]
        if v.lower().endswith("nan"):
            assert np.isnan(vals[c])
        else:
            assert vals[c] == float(v), (fmt, c, v)
        cases.add()
    # every code is its value's encoding (NaN aside)
    back = fplab.encode(vals, fmt)
    ok = ~np.isnan(vals)
    assert np.array_equal(fplab.decode(back[ok], fmt), vals[ok])
    assert cases.n == 1 << f.bits


def test_decode_wide_formats_and_errors():
    assert fplab.decode(np.uint64([0x3FF0000000000000]), "binary64").dtype == np.float64
    assert fplab.decode(np.uint32([0x3F800000]), "binary32")[0] == 1.0
    with pytest.raises(TypeError, match="the codes of fp8-e4m3 .8 bits. are uint8"):
        fplab.decode(np.uint16([1, 0x100]), "fp8-e4m3")
    with pytest.raises(ValueError, match=r"codes\[2\] \(flat index\) = 0x10 has "
                                         "bits above float4_e2m1fn's 4"):
        fplab.decode(np.uint8([1, 2, 0x10, 0x20]), "float4_e2m1fn")


@pytest.mark.parametrize("fmt,dtype,code,value", [
    # E8M0's 2^-127 is a binary32 subnormal, 2^127 a normal number
    ("float8_e8m0fnu", np.float32, np.uint8(0), 2.0 ** -127),
    ("float8_e8m0fnu", np.float32, np.uint8(254), 2.0 ** 127),
    ("fp8-e8m0", np.float32, np.uint8(0), 2.0 ** -127),
    ("binary16", np.float32, np.uint16(1), 2.0 ** -24),
    ("bfloat16", np.float32, np.uint16(1), 2.0 ** -133),
    ("tf32", np.float32, np.uint32(1), 2.0 ** -136),
    ("ieee:9:10", np.float64, np.uint32(1), 2.0 ** -264),   # wider range
    ("ieee:8:24", np.float64, np.uint64(1), 2.0 ** -150),   # more precision
])
def test_decode_float32_where_binary32_holds_every_value(fmt, dtype, code, value):
    got = fplab.decode(np.array([code]), fmt)
    assert got.dtype == dtype, (fmt, got.dtype)
    assert got[0] == value, (fmt, got[0])


def test_layouts_and_kinds(rng, cases):
    x = (rng.standard_normal((64, 48)) * 100).astype(np.float32)
    want = fplab.round(x, "bfloat16")
    views = [x[::2, ::3], x[::-1], x.T, x[:, 5], np.asfortranarray(x),
             x.astype(">f4")]
    for v in views:
        assert same_bits(fplab.round(v, "bfloat16"),
                         fplab.round(np.ascontiguousarray(v, dtype=np.float32), "bfloat16"))
        cases.add()
    assert fplab.round(x[::-1], "bfloat16").flags.c_contiguous
    # out=, in place
    y = x.copy()
    r = fplab.round(y, "bfloat16", out=y)
    assert r is y and same_bits(y, want)
    # 0-d and Python numbers, empty arrays
    assert fplab.round(0.1, "bf16") == 0.10009765625
    z = fplab.round(np.float32(0.1), "bf16")
    assert isinstance(z, np.ndarray) and z.shape == () and z.dtype == np.float32
    assert fplab.round(np.zeros((0, 3), np.float32), "fp16").shape == (0, 3)
    assert fplab.encode(np.zeros(0), "fp8-e4m3").dtype == np.uint8
    assert fplab.encode(1.0, "bf16") == 0x3F80
    assert cases.n == len(views)
