"""Stochastic rounding with supplied random bits (rm='srb') and the
saturation modes from Python: against gfloat's golden table (every row of
tests/data/p3109_sr.tsv.gz, all four variants, every R), and bit for bit
against the CLI (`fplab ref cast|add --sr-bits`, `--sr-hw`, `fplab
quantize --sr-bits`, `fplab calc --sr-bits`, `--sat`)."""
import gzip
import os

import numpy as np
import pytest

import fplab
from conftest import ROOT
from test_round import same_bits

DATA = os.path.join(ROOT, "tests", "data")
VARIANTS = ["stochastic", "stochastic_odd", "fast", "fastest"]


def golden(name):
    """The rows of a gfloat golden table (fields split), '#' lines left
    out; skipped when the table is not in the checkout."""
    path = os.path.join(DATA, name)
    if not os.path.exists(path):
        pytest.skip("no %s" % path)
    with gzip.open(path, "rt") as fp:
        return [l.rstrip("\n").split("\t") for l in fp if not l.startswith("#")]


def test_sr_table_of_gfloat(cases):
    """Every row of gfloat's table: input x, N = 1..3 bits, the codes below
    and above, and per variant a mask of the R that round up; fplab.encode
    with rbits = every R gives gfloat's code, whole formats at a time."""
    groups = {}
    for f in golden("p3109_sr.tsv.gz"):
        if len(f) != 9:
            continue
        down = int(f[3], 16)
        up = down if f[4] == "-" else int(f[4], 16)
        groups.setdefault((f[0], int(f[2])), []).append(
            (float.fromhex(f[1]), down, up, [int(m, 16) for m in f[5:9]]))
    total = 0
    for (fmt, nb), rows in sorted(groups.items()):
        R = np.arange(1 << nb, dtype=np.uint64)
        x = np.repeat([r[0] for r in rows], R.size)
        rb = np.tile(R, len(rows))
        for v, name in enumerate(VARIANTS):
            want = np.array([r[2] if (r[3][v] >> int(k)) & 1 else r[1]
                             for r in rows for k in R], dtype=np.uint64)
            got = fplab.encode(x, fmt, "srb", rbits=rb, nbits=nb, variant=name)
            bad = np.flatnonzero(got.astype(np.uint64) != want)
            assert bad.size == 0, "%s N=%d %s: x=%r R=%d: fplab %#x, gfloat %#x" % (
                fmt, nb, name, x[bad[0]], rb[bad[0]], int(got[bad[0]]),
                int(want[bad[0]]))
            cases.add(x.size)
            total += x.size
    assert len(groups) >= 28 and total == cases.n > 100000


def cli_cast(cli, tmp_path, x, fmt, rbits, nbits=None, variant=None, hw=None,
             in_fmt=None, extra=()):
    """`fplab ref cast` with --sr-bits: the output file's array."""
    xi, ri, out = (str(tmp_path / n) for n in ("x.npy", "r.npy", "y.npy"))
    np.save(xi, x)
    np.save(ri, rbits)
    args = ["ref", "cast", xi, "--out-format", fmt, "--out", out, "--sr-bits", ri]
    if hw:
        args += ["--sr-hw", hw]
    else:
        args += ["--sr-nbits", nbits]
    if variant:
        args += ["--sr-variant", variant]
    if in_fmt:
        args += ["--in-format", in_fmt]
    r = cli(*args, *extra)
    assert r.returncode == 0, r.stderr
    return np.load(out)


def code_bits(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        a = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])
    return a.astype(np.uint64)


def sample(rng, n):
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-24, 18, n))).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40]
    return x


@pytest.mark.parametrize("fmt", ["p3109_k8p3se", "p3109_k6p4sf", "p3109_k8p1ue",
                                 "fp8-e4m3", "binary16", "bfloat16"])
def test_encode_round_against_ref_cast(fmt, cli, tmp_path, rng, cases):
    x = sample(rng, 512)
    for nbits, variant in ((1, "stochastic"), (3, "stochastic_odd"),
                           (7, "fast"), (13, "fastest"), (64, "stochastic")):
        hi = 1 << 63 if nbits == 64 else 1 << nbits
        rb = rng.integers(0, hi, x.size, dtype=np.uint64)
        want = cli_cast(cli, tmp_path, x, fmt, rb, nbits,
                        variant.replace("_", "-"))
        codes, flags = fplab.encode(x, fmt, "srb", rbits=rb, nbits=nbits,
                                    variant=variant, return_flags=True)
        assert np.array_equal(code_bits(codes), code_bits(want)), (fmt, nbits, variant)
        # the same bits from float64 input, and as values from round
        assert np.array_equal(fplab.encode(x.astype(np.float64), fmt, "srb",
                                           rbits=rb, nbits=nbits, variant=variant),
                              codes)
        if fmt not in ("p3109_k8p1ue",):
            vals = fplab.round(x, fmt, "srb", rbits=rb, nbits=nbits, variant=variant)
            assert same_bits(vals, np.float32(fplab.decode(codes, fmt)))
        # any thread count, the same bits
        assert np.array_equal(fplab.encode(x, fmt, "srb", rbits=rb, nbits=nbits,
                                           variant=variant, threads=3), codes)
        cases.add(x.size)
    assert cases.n == 5 * 512


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_codes_input_and_torch(cli, tmp_path, rng, cases):
    """bfloat16 codes in (numpy uint16 with in_fmt, and a torch bfloat16
    tensor) rounded into fp8-e4m3 with supplied bits: `fplab ref cast
    --in-format bfloat16`'s bits; float16 arrays round in place of kind."""
    x = sample(rng, 300)
    b = fplab.encode(x, "bfloat16")
    rb = rng.integers(0, 1 << 5, x.size, dtype=np.uint8)
    want = cli_cast(cli, tmp_path, b, "fp8-e4m3", rb, 5, in_fmt="bfloat16")
    got = fplab.encode(b, "fp8-e4m3", "srb", rbits=rb, nbits=5, in_fmt="bfloat16")
    assert np.array_equal(code_bits(got), code_bits(want))
    cases.add(x.size)
    h = x.astype(np.float16)   # overflows to infinities on purpose
    want = cli_cast(cli, tmp_path, h, "fp8-e5m2", rb, 5)
    r = fplab.round(h, "fp8-e5m2", "srb", rbits=rb, nbits=5)
    assert r.dtype == np.float16
    assert np.array_equal(fplab.encode(r, "fp8-e5m2"), code_bits(want).astype(np.uint8))
    cases.add(x.size)
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(b.view(np.int16)).view(torch.bfloat16)
    tr = fplab.round(t, "fp8-e4m3", "srb", rbits=torch.from_numpy(rb), nbits=5)
    assert tr.dtype == torch.bfloat16
    assert np.array_equal(fplab.encode(tr, "fp8-e4m3").numpy(), code_bits(
        cli_cast(cli, tmp_path, b, "fp8-e4m3", rb, 5, in_fmt="bfloat16")).astype(np.uint8))
    cases.add(x.size)
    assert cases.n == 900


@pytest.mark.parametrize("hw, fmt", [("ptx-cvt.rs.e4m3x4", "fp8-e4m3"),
                                     ("ptx-cvt.rs.e2m1x4", "float4_e2m1fn"),
                                     ("ptx-cvt.rs.bf16x2", "bfloat16"),
                                     ("onednn-f16", "binary16")])
def test_hardware_presets_against_ref_cast(hw, fmt, cli, tmp_path, rng, cases):
    x = sample(rng, 400)
    x[6:10] = [1e9, -1e9, 3e38, np.inf]
    info = fplab.sr_hw_presets()[hw]
    assert fplab.Format(info["format"]) == fplab.Format(fmt)
    rb = rng.integers(0, 1 << info["nbits"], x.size, dtype=np.uint32)
    want = cli_cast(cli, tmp_path, x, fmt, rb, hw=hw)
    got = fplab.encode(x, fmt, "srb", rbits=rb, sr_hw=hw)
    assert np.array_equal(code_bits(got), code_bits(want)), hw
    cases.add(x.size)
    assert cases.n == 400


def test_arith_against_ref_add(cli, tmp_path, rng, cases):
    a = fplab.round(rng.standard_normal(256).astype(np.float32), "bfloat16")
    b = fplab.round(rng.standard_normal(256).astype(np.float32) * 1e-3, "bfloat16")
    rb = rng.integers(0, 1 << 8, a.size, dtype=np.uint16)
    paths = [str(tmp_path / n) for n in ("a.npy", "b.npy", "r.npy", "o.npy")]
    for p, v in zip(paths, (fplab.encode(a, "bfloat16"), fplab.encode(b, "bfloat16"),
                            rb)):
        np.save(p, v)
    for variant in VARIANTS:
        r = cli("ref", "add", paths[0], paths[1], "--in-format", "bfloat16",
                "--out", paths[3], "--sr-bits", paths[2], "--sr-nbits", 8,
                "--sr-variant", variant.replace("_", "-"))
        assert r.returncode == 0, r.stderr
        want = np.load(paths[3])
        got = fplab.add(a, b, "bfloat16", "srb", rbits=rb, nbits=8, variant=variant)
        assert np.array_equal(fplab.encode(got, "bfloat16"), code_bits(want).astype(np.uint16))
        cases.add(a.size)
    assert cases.n == 4 * 256


def test_quantize_against_cli(cli, tmp_path, rng, cases):
    x = (rng.standard_normal((4, 64)) * 3).astype(np.float32)
    rb = rng.integers(0, 1 << 6, x.size, dtype=np.uint8)
    xi, ri, dq, co = (str(tmp_path / n) for n in ("x.npy", "r.npy", "d.npy", "c.npy"))
    np.save(xi, x)
    np.save(ri, rb)
    for scheme in ("mxfp8-e4m3", "mxfp4-e2m1", "nvfp4", "fp8-e4m3-tensor"):
        for variant in ("stochastic", "fastest"):
            r = cli("quantize", "--scheme", scheme, xi, "--dequant-out", dq,
                    "--codes-out", co, "--sr-bits", ri, "--sr-nbits", 6,
                    "--sr-variant", variant)
            assert r.returncode == 0, r.stderr
            q = fplab.quantize(x, scheme, rbits=rb.reshape(x.shape), nbits=6,
                               variant=variant)
            assert same_bits(q.dequantized, np.load(dq)), (scheme, variant)
            assert np.array_equal(q.codes, np.load(co))
            # rbits may come flat: one value per element, flat order
            assert np.array_equal(fplab.quantize(x, scheme, rbits=rb, nbits=6,
                                                 variant=variant).codes, q.codes)
            cases.add(x.size)
    assert cases.n == 8 * x.size


def test_calc_scalars_and_python_numbers(cli, cases):
    """A Python float with an int of random bits: `fplab calc --sr-bits`."""
    for x, rb, nb, v in ((1.0 + 2 ** -5, 3, 2, "stochastic"),
                         (-0.3, 200, 8, "fast"), (1e-3, 1, 1, "fastest"),
                         (300.0, 12345, 16, "stochastic_odd")):
        r = cli("calc", "p3109_k8p3se", "round", repr(x), "--sr-bits", rb,
                "--sr-nbits", nb, "--sr-variant", v.replace("_", "-"))
        assert r.returncode == 0, r.stderr
        code = int(r.stdout.split()[0], 16)
        assert fplab.encode(x, "p3109_k8p3se", "srb", rbits=rb, nbits=nb,
                            variant=v) == code
        assert fplab.round(x, "p3109_k8p3se", "srb", rbits=rb, nbits=nb,
                           variant=v) == fplab.decode(code, "p3109_k8p3se")
        cases.add()
    assert cases.n == 4


def test_unbiased_on_average(cases):
    """With every R of N bits once, variant stochastic's mean is x to within
    2^-N ulp: 0.3 into bfloat16 with N = 8."""
    n = 8
    x = np.full(1 << n, 0.3, np.float32)
    r = fplab.round(x, "bfloat16", "srb", rbits=np.arange(1 << n), nbits=n)
    ulp = 2.0 ** (np.floor(np.log2(0.3)) - 7)
    assert abs(r.astype(np.float64).mean() - np.float64(np.float32(0.3))) <= ulp * 2 ** -n
    cases.add(x.size)
    assert cases.n == 256


# ---- saturation --------------------------------------------------------------
SAT = [(False, "none"), (True, "propagate"), ("none", "none"),
       ("propagate", "propagate"), ("finite", "finite"), ("satfinite", "finite")]


@pytest.mark.parametrize("fmt", ["fp8-e5m2", "p3109_k8p3se", "p3109_k8p3sf",
                                 "binary16"])
def test_saturate_names_against_calc(fmt, cli, cases):
    x = np.float32([1e6, -1e6, np.inf, -np.inf, np.nan, 1.0, 7e4, -7e4])
    for kw, name in SAT:
        codes, flags = fplab.encode(x, fmt, "rtz", saturate=kw, return_flags=True)
        want_flags = 0
        for i, v in enumerate(x):
            bits = "bits:0x%08x" % int(np.float32(v).view(np.uint32))
            r = cli("calc", fmt, "convert", bits, "--from", "binary32", "--rm",
                    "rtz", "--sat", name)
            assert r.returncode == 0, r.stderr
            code, _, fl = r.stdout.split()
            assert int(codes[i]) == int(code, 16), (fmt, kw, float(v))
            want_flags |= 0 if fl == "-" else sum(
                {"inexact": 1, "underflow": 2, "overflow": 4, "divbyzero": 8,
                 "invalid": 16}[f] for f in fl.split(","))
            cases.add()
        assert int(flags) == want_flags, (fmt, kw)
    assert cases.n == len(SAT) * x.size


def test_saturate_finite_in_arith_and_round(cases):
    big = np.float32([60000.0, -60000.0, np.inf])
    r = fplab.mul(big, np.float32([2.0, 2.0, 1.0]), "binary16", saturate="finite")
    assert r.tolist() == [65504.0, -65504.0, 65504.0]
    r = fplab.mul(big, np.float32([2.0, 2.0, 1.0]), "binary16", saturate="propagate")
    assert r.tolist() == [65504.0, -65504.0, np.inf]
    r = fplab.mul(big, np.float32([2.0, 2.0, 1.0]), "binary16", saturate=True)
    assert r.tolist() == [65504.0, -65504.0, np.inf]
    assert fplab.round(np.float32([np.inf]), "fp8-e5m2", saturate="finite")[0] == 57344
    assert np.isinf(fplab.round(np.float32([np.inf]), "fp8-e5m2", saturate=True)[0])
    cases.add(8)
    assert cases.n == 8
