#!/usr/bin/env python3
"""numpy_check.py FPLAB WORKDIR -- `fplab quantize` against numpy, bit for bit.

Each scheme is recomputed here from its published formulas with numpy
arithmetic alone (binary64 for the exact MX steps, numpy float32 for the
binary32 steps of the NVIDIA recipes), on a seeded random float32 tensor
with zeros, binary32 subnormals, ties of the element grids, huge and tiny
blocks, a NaN and an Inf; the dequantized tensor, the codes and the block
scales written by fplab must equal these to the bit (NaN where NaN).
The same tensor read from an .npz and a .safetensors member, and rounded
to bfloat16 (safetensors BF16, .npy uint16 with --in-format), outputs
written to .npz and .safetensors, and fplab hist over each input against
its report over the equivalent .npy.

  MX (OCP MX v1.0 section 6.3): shared = floor(log2 max|V|) - emax_elem,
    clamped at -127 (NaN scale 0xFF for a block with Inf/NaN); P = V / 2^s
    rounded to nearest even on the element grid (quantum 2^(max(e, emin) -
    m)), clamped to the largest normal; dequant float32(P * 2^s).
    Also the RCEIL rule: E8M0 = float32(amax * float32(1/max)) rounded up.
  NVFP4 (Transformer Engine core_nvfp4.cuh / quantization_nvfp4.py).
  FP8 per-tensor current scaling (TE quantization_current_scaling.py).

The seed is printed; FPLAB_TEST_SEED replays it.  Exit 77 without numpy.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("numpy_check: no numpy in this python: skipped")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import seed, st_parse, st_write  # noqa: E402 (tests/testlib.py)

FPLAB, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(seed("numpy_check"))
np.seterr(all="ignore")
F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)

# (emax_elem, fraction bits, emin, largest normal, width) of the elements
ELEM = {
    "e4m3": (8, 3, -6, 448.0, 8),
    "e5m2": (15, 2, -14, 57344.0, 8),
    "e2m3": (2, 3, 0, 7.5, 6),
    "e3m2": (4, 2, -2, 28.0, 6),
    "e2m1": (2, 1, 0, 6.0, 4),
}


def round_grid(P, m, emin, maxval):
    """P (float64, exact) to nearest even on the grid, saturating; sign kept."""
    a = np.abs(P)
    _, ex = np.frexp(a)                       # a = f * 2^ex, f in [0.5, 1)
    q = np.maximum(ex - 1, emin) - m          # exponent of the quantum
    r = np.rint(np.ldexp(a, -q))              # exact scaling, ties to even
    r = np.ldexp(r, q)
    sat = r > maxval
    r = np.where(sat, maxval, r)
    r = np.where(a == 0, 0.0, r)
    return np.copysign(r, P), sat


def encode(r, m, emin, width):
    """codes of grid values r (float64, sign kept), IEEE-style layout."""
    a = np.abs(r)
    bias = 1 - emin
    _, ex = np.frexp(a)
    e = ex - 1
    normal = a >= 2.0 ** emin
    sub = np.rint(np.ldexp(a, -(emin - m))).astype(np.int64)
    field = np.where(normal, e + bias, 0)
    frac = np.where(normal, np.rint((np.ldexp(a, -np.where(normal, e, 0)) - 1) * 2 ** m), 0)
    mag = np.where(normal, (field << m) | frac.astype(np.int64), sub)
    mag = np.where(a == 0, 0, mag)
    return (mag | (np.signbit(r).astype(np.int64) << (width - 1))).astype(np.uint8)


def e8m0_rceil(d):
    """TE float_to_e8m0 (software path) of a float32 d >= 0."""
    b = np.array(d, dtype=np.float32).view(np.uint32).astype(np.int64)
    E, M = b >> 23, b & 0x7FFFFF
    up = np.where(E != 0, (M != 0) & (E != 0xFE), M > 0x400000)
    return np.where(b == 0, 0, E + up)


def mx_ref(x, elem, rule="floor"):
    """x: (rows, 32*k) float32 -> deq float32, codes uint8, scales uint8"""
    rows, cols = x.shape
    blk = x.reshape(rows, cols // 32, 32).astype(np.float64)
    amax = np.max(np.abs(blk), axis=2)        # NaN propagates
    bad = ~np.isfinite(amax)
    if elem == "int8":
        emax, m, emin, maxval, width = 0, 6, None, 127 / 64, 8
    else:
        emax, m, emin, maxval, width = ELEM[elem]
    if rule == "floor":
        _, ex = np.frexp(np.where(bad, 1.0, amax))
        s = np.where(amax == 0, -127, ex - 1 - emax)
    else:   # rceil
        rcp = F32(1.0 / maxval)
        d = np.where(bad, F32(1), amax.astype(np.float32)) * rcp
        s = e8m0_rceil(d) - 127
    s = np.maximum(s, -127)
    P = np.ldexp(blk, -s[:, :, None])
    if elem == "int8":
        k = np.rint(P * 64)
        k = np.clip(k, -127, 127) + 0.0       # int8 has no -0
        codes = k.astype(np.int64).astype(np.int8).view(np.uint8)
        deq = np.ldexp(k, s[:, :, None] - 6)
    else:
        r, _ = round_grid(P, m, emin, maxval)
        codes = encode(r, m, emin, width)
        deq = np.ldexp(r, s[:, :, None])
    deq = deq.astype(np.float32)
    deq = np.where(bad[:, :, None], np.float32(np.nan), deq)
    codes = np.where(bad[:, :, None], 0, codes).astype(np.uint8)
    scales = np.where(bad, 255, s + 127).astype(np.uint8)
    return deq.reshape(rows, cols), codes.reshape(rows, cols), scales


def e4m3_of(v64):
    r, _ = round_grid(v64, 3, -6, 448.0)
    return r


def nvfp4_ref(x):
    rows, cols = x.shape
    ax = np.abs(x)
    A = F32(np.nanmax(ax))
    senc = F32(2688) / A
    if np.isinf(senc):
        senc = FLT_MAX
    if A == 0 or senc == 0:
        senc = F32(1)
    sdec = F32(1) / senc
    mult = senc * (F32(1) / F32(6))
    blk = x.reshape(rows, cols // 16, 16)
    ab = np.max(np.abs(blk), axis=2)          # NaN propagates
    nan = np.isnan(ab)
    d = np.minimum(np.where(nan, F32(0), ab) * mult, FLT_MAX)
    d = np.minimum(d, F32(448))
    sv = e4m3_of(d.astype(np.float64)).astype(np.float32)
    scales = encode(sv.astype(np.float64), 3, -6, 8)
    scales = np.where(nan, 0x7F, scales).astype(np.uint8)
    enc = F32(1) / (sv * sdec)
    enc = np.where(np.isinf(enc), FLT_MAX, enc).astype(np.float32)
    y = (blk * enc[:, :, None]).astype(np.float32)
    r, _ = round_grid(y.astype(np.float64), 1, 0, 6.0)
    codes = encode(r, 1, 0, 4)
    deq = (r * sv[:, :, None].astype(np.float64) * np.float64(sdec)).astype(np.float32)
    deq = np.where(nan[:, :, None], np.float32(np.nan), deq)
    codes = np.where(nan[:, :, None], 0, codes).astype(np.uint8)
    return deq.reshape(rows, cols), codes.reshape(rows, cols), scales


def tensor_ref(x, elem):
    emax, m, emin, maxval, width = ELEM[elem]
    A = F32(np.nanmax(np.abs(x)))
    scale = F32(maxval) / A
    if np.isinf(scale):
        scale = FLT_MAX
    if A == 0:
        scale = F32(1)
    sinv = F32(1) / scale
    y = (x * scale).astype(np.float32)
    r, _ = round_grid(y.astype(np.float64), m, emin, maxval)
    codes = encode(r, m, emin, width)
    deq = (r.astype(np.float32) * sinv).astype(np.float32)
    # a NaN input, or an Inf times a zero scale: a NaN code (whichever NaN
    # the platform makes), compared through the dequantized NaN
    nan = np.isnan(y)
    deq = np.where(nan, np.float32(np.nan), deq)
    return deq, codes, nan


def make_tensor(rows, cols):
    x = np.empty((rows, cols), dtype=np.float32)
    for i in range(rows):
        k = int(rng.integers(-140, 110))
        row = rng.standard_normal(cols) * 2.0 ** k
        x[i] = row.astype(np.float32)
    # ties of the E4M3 grid in one row, zeros, subnormals, a zero row
    x[1, :64] = ((np.arange(64) % 16) + 0.5).astype(np.float32) * F32(2.0 ** -4)
    x[2, ::5] = 0
    x[3, :] = (rng.integers(1, 2**23, cols).astype(np.uint32)).view(np.float32)
    x[4, :] = 0
    x[5, 7] = -0.0
    return x


def run(scheme, path, out):
    cmd = [FPLAB, "quantize", "--scheme", scheme, path, "--dequant-out", out + "_d.npy",
           "--codes-out", out + "_c.npy"]
    if not scheme.endswith("-tensor"):
        cmd += ["--scales-out", out + "_s.npy"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("numpy_check: %s failed: %s" % (" ".join(cmd), p.stderr.decode()))
    d = np.load(out + "_d.npy")
    c = np.load(out + "_c.npy")
    s = np.load(out + "_s.npy") if not scheme.endswith("-tensor") else None
    return d, c, s


def same_bits(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    both_nan = np.isnan(a) & np.isnan(b)
    return both_nan | (a.view(np.uint32) == b.view(np.uint32))


fails = 0
checked = 0


def compare(name, got, want, what):
    global fails, checked
    ok = same_bits(got, want) if got.dtype == np.float32 else (got == want)
    checked += ok.size
    if not ok.all():
        idx = np.argwhere(~ok)[0]
        fails += 1
        print("FAIL %s %s at %s: fplab %r, numpy %r" % (name, what, tuple(idx),
              got[tuple(idx)], want[tuple(idx)]))


x = make_tensor(48, 256)
x[6, 40] = np.nan      # a NaN block among finite ones
np.save(os.path.join(WORK, "xt.npy"), x)      # per tensor: an Inf would
x[7, 200] = np.inf     # zero the scale (every element NaN): MX and NVFP4 only
np.save(os.path.join(WORK, "x.npy"), x)

for src, arr in (("x", x),):
    path = os.path.join(WORK, src + ".npy")
    for elem, scheme in (("e4m3", "mxfp8-e4m3"), ("e5m2", "mxfp8-e5m2"),
                         ("e2m3", "mxfp6-e2m3"), ("e3m2", "mxfp6-e3m2"),
                         ("e2m1", "mxfp4-e2m1"), ("int8", "mxint8")):
        for rule in ("floor", "rceil"):
            sch = scheme if rule == "floor" else scheme + ":rceil"
            d, c, s = run(sch, path, os.path.join(WORK, src + "_" + sch))
            wd, wc, ws = mx_ref(arr, elem, rule)
            compare(src + " " + sch, d, wd, "dequant")
            compare(src + " " + sch, c, wc, "codes")
            compare(src + " " + sch, s, ws, "scales")
    d, c, s = run("nvfp4", path, os.path.join(WORK, src + "_nvfp4"))
    wd, wc, ws = nvfp4_ref(arr)
    compare(src + " nvfp4", d, wd, "dequant")
    compare(src + " nvfp4", c, wc, "codes")
    compare(src + " nvfp4", s, ws, "scales")
    xt = np.load(os.path.join(WORK, "xt.npy"))
    for elem in ("e4m3", "e5m2"):
        sch = "fp8-%s-tensor" % elem
        d, c, _ = run(sch, os.path.join(WORK, "xt.npy"), os.path.join(WORK, src + "_" + sch))
        wd, wc, nan = tensor_ref(xt, elem)
        compare(src + " " + sch, d, wd, "dequant")
        compare(src + " " + sch, np.where(nan, 0, c), np.where(nan, 0, wc), "codes")

# Inputs and outputs in every container (fplab_tensor): the tensor as a
# member of an .npz and of a .safetensors file, and rounded to bfloat16 as
# safetensors BF16 and as .npy uint16 bits (--in-format bfloat16), each
# against the model of the values it holds; outputs to .npz (numpy reads
# them) and .safetensors (read here with json and struct).


def st_read(path, key):
    _, header, _, data = st_parse(path)
    e = header[key]
    dt = {"F32": np.float32, "U8": np.uint8}[e["dtype"]]
    a, b = e["data_offsets"]
    return np.frombuffer(data[a:b], dtype=dt).reshape(e["shape"])


def to_bf16_bits(a):
    """float32 to bfloat16 bits, nearest even (NaN stays NaN)."""
    u = a.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def run_io(scheme, spec, out, extra=()):
    cmd = [FPLAB, "quantize", "--scheme", scheme, spec, "--dequant-out", out + "_d.npz",
           "--codes-out", out + "_c.safetensors", "--scales-out", out + "_s.npy"] + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("numpy_check: %s failed: %s" % (" ".join(cmd), p.stderr.decode()))
    with np.load(out + "_d.npz") as z:
        d = z["dequant"]
    return d, st_read(out + "_c.safetensors", "codes"), np.load(out + "_s.npy")


def hist_lines(spec, extra=()):
    """fplab hist's report without its first line (which names the input)."""
    cmd = [FPLAB, "hist", spec, "--format", "fp8-e4m3", "--out", os.path.join(WORK, "h"),
           "--scaling", "mxfp8-e4m3,nvfp4"] + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("numpy_check: %s failed: %s" % (" ".join(cmd), p.stderr.decode()))
    return p.stdout.decode().splitlines()[1:-1]


hist_runs = 0


def compare_hist(name, got, want):
    global fails, hist_runs
    hist_runs += 1
    if got != want or len(got) < 20:
        fails += 1
        print("FAIL hist %s: %d lines differ from the .npy run's" %
              (name, sum(a != b for a, b in zip(got, want)) + abs(len(got) - len(want))))


xb_bits = to_bf16_bits(x)
xb = (xb_bits.astype(np.uint32) << 16).view(np.float32)
np.savez(os.path.join(WORK, "w.npz"), x=x, other=x[:2])
# unpadded, as some writers leave the header
st_write(os.path.join(WORK, "w.safetensors"),
         {"x": ("F32", x.shape, x.tobytes()), "g": ("BF16", x.shape, xb_bits.tobytes())},
         pad=False)
np.save(os.path.join(WORK, "xb_bits.npy"), xb_bits)
np.save(os.path.join(WORK, "xb.npy"), xb)
io_cases = (
    ("npz member", os.path.join(WORK, "w.npz") + ":x", (), x),
    ("safetensors F32", os.path.join(WORK, "w.safetensors") + ":x", (), x),
    ("safetensors BF16", os.path.join(WORK, "w.safetensors") + ":g", (), xb),
    ("npy bf16 bits", os.path.join(WORK, "xb_bits.npy"), ("--in-format", "bfloat16"), xb),
)
for k, (name, spec, extra, arr) in enumerate(io_cases):
    d, c, s = run_io("mxfp8-e4m3", spec, os.path.join(WORK, "io%d" % k), extra)
    wd, wc, ws = mx_ref(arr, "e4m3", "floor")
    compare(name + " mxfp8-e4m3", d, wd, "dequant")
    compare(name + " mxfp8-e4m3", c, wc, "codes")
    compare(name + " mxfp8-e4m3", s, ws, "scales")
    plain = os.path.join(WORK, "x.npy" if arr is x else "xb.npy")
    compare_hist(name, hist_lines(spec, extra), hist_lines(plain))

# 12 MX runs and NVFP4 (dequant, codes, scales), 2 per-tensor runs and the
# 4 container runs (MX: dequant, codes, scales)
want_checked = (12 * (2 * x.size + x.size // 32) + 2 * x.size + x.size // 16 +
                2 * 2 * x.size + 4 * (2 * x.size + x.size // 32))
print("numpy_check: %d values compared bit for bit, %d mismatching arrays" %
      (checked, fails))
if checked != want_checked or hist_runs != len(io_cases):
    print("numpy_check: expected %d comparisons and %d hist runs" %
          (want_checked, len(io_cases)))
    sys.exit(1)
sys.exit(1 if fails else 0)
