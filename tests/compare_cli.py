#!/usr/bin/env python3
"""`fplab compare` end to end, against numpy and torch.

usage: compare_cli.py FPLAB WORKDIR

Planted differences with exact expected counts (JSON parsed back);
tolerances exactly at their edges (exit 0) and one step past (exit 1);
--torch-defaults checked element by element against torch.isclose on the
float64-promoted tensors and in total against torch.testing.assert_close
(equal_nan=True: fplab matches NaN with NaN); bfloat16 and fp8 through
safetensors and as numpy bit patterns; the GEMM view of a planted tile;
K-block attribution of a dropped block; relative errors against the exact
result recomputed with numpy; the model line from safetensors metadata and
from a .model sidecar; the same verdict on 1 and 2 threads.

Seeded (the seed is printed; FPLAB_TEST_SEED replays it, default 7);
every check counted, the count asserted (tests/testlib.py).
Exits 77 when torch is missing (numpy alone cannot decide the torch cases).
"""
import json
import os
import subprocess
import sys

import numpy as np

from testlib import check, finish, seed, st_write

try:
    import torch
except ImportError:
    print("compare_cli: no torch in this python: skipped")
    sys.exit(77)

# one thread: torch's worker threads spin on a busy machine, and these
# tensors are small
torch.set_num_threads(1)
FPLAB, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(seed("compare_cli", 7))


def p(name):
    return os.path.join(WORK, name)


def run(*args):
    r = subprocess.run([FPLAB, "compare"] + [str(a) for a in args],
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def jrun(*args):
    out = p("verdict.json")
    if os.path.exists(out):
        os.remove(out)
    rc, so, se = run(*args, "--json", out)
    if rc not in (0, 1):
        print("fplab compare %s: exit %d\n%s" % (" ".join(map(str, args)), rc,
                                                 se), file=sys.stderr)
        return rc, None, so
    with open(out) as fp:
        return rc, json.load(fp), so


# ---- A. planted differences ----------------------------------------------
ref = (rng.standard_normal((64, 100)) * 10).astype(np.float32)
ker = ref.copy()
kv, rv = ker.view(np.uint32), ref.view(np.uint32)
flat = iter(rng.permutation(ref.size)[:40].tolist())


def at():
    return np.unravel_index(next(flat), ref.shape)


ones = [at() for _ in range(7)]
for i in ones:
    kv[i] = rv[i] + 1
big = at()
kv[big] = rv[big] + 300
for _ in range(3):
    ker[at()] = np.nan
for _ in range(2):
    ref[at()] = np.nan
for q in range(2):
    i = at()
    kv[i] = 0x7fc00001
    rv[i] = 0x7fc00001 if q == 0 else 0xffc00000
for _ in range(4):
    ker[at()] = np.inf
i = at()
ker[i], ref[i] = np.inf, -np.inf
for _ in range(5):
    i = at()
    kv[i], rv[i] = 0x00000000, 0x80000000
np.save(p("a_k.npy"), ker)
np.save(p("a_r.npy"), ref)
rc, j, _ = jrun(p("a_k.npy"), p("a_r.npy"))
c = j["counts"]
check(rc == 1 and j["verdict"] == "fail" and j["exit"] == 1, "A: exit %d" % rc)
check(c == {"identical": 6400 - 7 - 1 - 3 - 2 - 1 - 4 - 1 - 5,
            "nan_both": 2, "nan_payload_differs": 1, "nan_kernel_only": 3,
            "nan_reference_only": 2, "inf_disagreements": 5, "signed_zero": 5,
            "value_pairs": 6400 - 3 - 2 - 2 - 5,
            "outside_tolerance": 7 + 1 + 3 + 2 + 4 + 1 + 5}, "A counts %r" % c)
h = {(e["lo"], e["hi"]): e["count"] for e in j["ulp_histogram"]}
check(h.get((1, 1)) == 7 and h.get((257, 512)) == 1 and
      sum(h.values()) == c["value_pairs"], "A histogram %r" % h)
check(j["max_ulp"]["ulp"] == 300 and j["max_ulp"]["index"] == list(map(int, big)),
      "A max ulp %r" % j["max_ulp"])
check(j["first_nan_disagreement"] is not None and
      j["first_inf_disagreement"] is not None, "A firsts")
check(j["tolerance"]["kind"] == "exact" and j["tolerance"]["from"] == "default",
      "A tolerance")
rc, j, _ = jrun(p("a_k.npy"), p("a_r.npy"), "--nan-payload")
check(rc == 1 and j["counts"]["outside_tolerance"] == 24, "A --nan-payload")
rc, j, _ = jrun(p("a_k.npy"), p("a_r.npy"), "--ulp", 300)
check(rc == 1 and j["counts"]["outside_tolerance"] == 3 + 2 + 4 + 1,
      "A --ulp 300: %r" % j["counts"])
rc, j, _ = jrun(p("a_k.npy"), p("a_r.npy"), "--ulp", 299, "--signed-zero")
check(j["counts"]["outside_tolerance"] == 3 + 2 + 4 + 1 + 1 + 5,
      "A --ulp 299 --signed-zero")
rc, j, _ = jrun(p("a_k.npy"), p("a_r.npy"), "--show", 100)
shown = [m["flat"] for m in j["mismatches"]]
check(len(shown) == 23 and shown == sorted(shown) and
      all(m["fail"] for m in j["mismatches"]), "A --show lists the failures")

# ---- B. tolerance edges ---------------------------------------------------
r16 = (rng.standard_normal(1000)).astype(np.float16)
k16 = r16.copy()
k16.view(np.uint16)[:] += np.where(np.isfinite(r16), 1, 0).astype(np.uint16)
np.save(p("b_r16.npy"), r16)
np.save(p("b_k16.npy"), k16)
check(run(p("b_k16.npy"), p("b_r16.npy"), "--ulp", 1)[0] == 0, "B ulp 1 passes")
check(run(p("b_k16.npy"), p("b_r16.npy"), "--ulp", 0)[0] == 1, "B ulp 0 fails")
check(run(p("b_k16.npy"), p("b_r16.npy"))[0] == 1, "B default fails")
check(run(p("b_r16.npy"), p("b_r16.npy"))[0] == 0, "B identical passes")
r64 = np.array([1.0, -3.0, 0.0], dtype=np.float64)
edge = np.array([1.0 + 2.0 ** -10 + 2.0 ** -20, -3.0 - 3 * 2.0 ** -10 - 2.0 ** -20,
                 2.0 ** -20])
np.save(p("b_r64.npy"), r64)
np.save(p("b_at.npy"), edge)
tol = ("--rtol", "0.0009765625", "--atol", "9.5367431640625e-07")
check(run(p("b_at.npy"), p("b_r64.npy"), *tol)[0] == 0, "B at the close edge")
for q in range(3):
    past = edge.copy()
    past[q] = np.nextafter(past[q], np.inf if past[q] > r64[q] else -np.inf)
    np.save(p("b_past.npy"), past)
    rc, j, _ = jrun(p("b_past.npy"), p("b_r64.npy"), *tol)
    check(rc == 1 and j["counts"]["outside_tolerance"] == 1 and
          j["mismatches"] == [], "B one step past element %d" % q)

# ---- C. --torch-defaults against torch ------------------------------------
RT = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
      torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}


def torch_case(dt, name, scale, passing):
    n = 20000
    e64 = torch.from_numpy(rng.standard_normal(n) * np.where(
        rng.random(n) < 0.2, 1e-4, 1.0) * scale)
    expected = e64.to(dt)
    rtol, atol = RT[dt]
    if passing:
        delta = expected.double() * rtol * 0.25
    else:
        u = torch.from_numpy(rng.uniform(-2.5, 2.5, n))
        v = torch.from_numpy(rng.uniform(-2.5, 2.5, n))
        delta = expected.double().abs() * rtol * u + atol * v
    actual = (expected.double() + delta).to(dt)
    # NaN and infinity on both sides: matches for both judges
    actual[5] = expected[5] = float("nan")
    actual[6] = expected[6] = float("inf")
    torch_close = torch.isclose(actual.double(), expected.double(), rtol=rtol,
                                atol=atol, equal_nan=True)
    try:
        torch.testing.assert_close(actual, expected, equal_nan=True)
        torch_pass = True
    except AssertionError:
        torch_pass = False

    def bits(t):
        return t.view({torch.float16: torch.int16, torch.bfloat16: torch.int16,
                       torch.float32: torch.int32,
                       torch.float64: torch.int64}[dt]).numpy()

    runs = []
    if dt == torch.bfloat16:
        kb = bits(actual).view(np.uint16)
        rb = bits(expected).view(np.uint16)
        np.save(p("c_k.npy"), kb)
        np.save(p("c_r.npy"), rb)
        runs.append((p("c_k.npy"), p("c_r.npy"), "--out-format", "bf16"))
        st_write(p("c.safetensors"), {"k": ("BF16", (n,), kb.tobytes()),
                                      "r": ("BF16", (n,), rb.tobytes())})
        runs.append((p("c.safetensors") + ":k", p("c.safetensors") + ":r"))
    else:
        np.save(p("c_k.npy"), actual.numpy())
        np.save(p("c_r.npy"), expected.numpy())
        runs.append((p("c_k.npy"), p("c_r.npy")))
    for args in runs:
        rc, j, _ = jrun(*args, "--torch-defaults", "--show", n)
        want = sorted(np.nonzero(~torch_close.numpy())[0].tolist())
        got = sorted(m["flat"] for m in j["mismatches"] if m["fail"])
        check(j["tolerance"]["rtol"] == rtol and j["tolerance"]["atol"] == atol,
              "%s: tolerance %r" % (name, j["tolerance"]))
        check(got == want, "%s %s: fplab fails %d elements, torch.isclose %d "
              "(first differing: %r)" % (name, "pass" if passing else "mixed",
                                         len(got), len(want),
                                         sorted(set(got) ^ set(want))[:5]))
        check((rc == 0) == torch_pass and (rc == 0) == (len(want) == 0),
              "%s: fplab exit %d, torch.testing.assert_close %s" %
              (name, rc, "passes" if torch_pass else "fails"))
        if not passing:
            check(n // 20 < len(want) < n - n // 20, "%s: the data straddle the tolerance "
                  "(%d of %d fail)" % (name, len(want), n))


for dt, name, scale in ((torch.float16, "float16", 10.0),
                        (torch.bfloat16, "bfloat16", 100.0),
                        (torch.float32, "float32", 1.0),
                        (torch.float64, "float64", 1e3)):
    torch_case(dt, name, scale, False)
    torch_case(dt, name, scale, True)
# formats torch has no entry for: rtol 0, atol 0
e4 = rng.integers(0, 0x7e, 500).astype(np.uint8)
e4b = e4.copy()
e4b[10] += 1
np.save(p("c8_k.npy"), e4b)
np.save(p("c8_r.npy"), e4)
rc, j, so = jrun(p("c8_k.npy"), p("c8_r.npy"), "--out-format", "fp8-e4m3",
                 "--torch-defaults")
check(rc == 1 and j["tolerance"]["rtol"] == 0 and "no default tolerance" in so
      and j["counts"]["outside_tolerance"] == 1, "C fp8 torch defaults")

# ---- D. fp8 and bf16 containers agree --------------------------------------
st_write(p("d8.safetensors"), {"k": ("F8_E4M3", (500,), e4b.tobytes()),
                               "r": ("F8_E4M3", (500,), e4.tobytes())})
rc2, j2, _ = jrun(p("d8.safetensors:k"), p("d8.safetensors:r"))
rc1, j1, _ = jrun(p("c8_k.npy"), p("c8_r.npy"), "--out-format", "fp8-e4m3")
check(rc1 == rc2 == 1 and j1["counts"] == j2["counts"] and
      j2["format"] == "fp8-e4m3", "D fp8 npy vs safetensors")
rc, _, se = run(p("c8_k.npy"), p("c8_r.npy"))
check(rc == 2 and "uint8 bit patterns: say which format with --out-format" in se,
      "D uint8 without a format: " + se)
rc, _, se = run(p("d8.safetensors:k"), p("c8_r.npy"), "--out-format", "fp8-e5m2")
check(rc == 2 and "float8_e4m3fn" in se and "fp8-e5m2" in se,
      "D F8_E4M3 vs --out-format fp8-e5m2: " + se)

# ---- E. format and shape mismatches name both sides ------------------------
np.save(p("e_f32.npy"), np.zeros((4, 5), np.float32))
np.save(p("e_f16.npy"), np.zeros((4, 5), np.float16))
np.save(p("e_f32b.npy"), np.zeros((5, 4), np.float32))
rc, _, se = run(p("e_f32.npy"), p("e_f16.npy"))
check(rc == 2 and "kernel %s is float32 (4, 5), reference %s is float16 (4, 5)"
      % (p("e_f32.npy"), p("e_f16.npy")) in se, "E dtype mismatch: " + se)
rc, _, se = run(p("e_f32.npy"), p("e_f32b.npy"))
check(rc == 2 and "float32 (4, 5)" in se and "float32 (5, 4)" in se and
      "shapes differ" in se, "E shape mismatch: " + se)

# ---- F. the GEMM view of a planted tile ------------------------------------
M, N, K = 128, 256, 64
A = rng.standard_normal((M, K)).astype(np.float16)
B = rng.standard_normal((K, N)).astype(np.float16)
C = (A.astype(np.float32) @ B.astype(np.float32)).astype(np.float16)
Ck = C.copy()
Ck.view(np.uint16)[32:48, 128:144] += 1
np.save(p("f_a.npy"), A)
np.save(p("f_b.npy"), B)
np.save(p("f_r.npy"), C)
np.save(p("f_k.npy"), Ck)
with open(p("f_r.npy.model"), "w") as fp:
    fp.write("gemm fp16 in, binary32 acc, sequential\n")
rc, j, so = jrun(p("f_k.npy"), p("f_r.npy"), "--tile", "16x16", "--inputs",
                 p("f_a.npy"), p("f_b.npy"), "--plot", p("plot"))
g = j["gemm"]
check(rc == 1 and g["tiles"]["with_differences"] == 1 and
      g["tiles"]["list"][0]["tile"] == [2, 8] and
      g["tiles"]["list"][0]["differ"] == 256, "F tiles %r" % g["tiles"])
check(g["rows_ranges"] == "32..47" and g["cols_ranges"] == "128..143",
      "F ranges %s %s" % (g["rows_ranges"], g["cols_ranges"]))
mp = g["map"]["rows"]
check(len(mp) == 8 and mp[2] == "." * 8 + "1" + "." * 7 and
      all(set(r) == {"."} for q, r in enumerate(mp) if q != 2), "F map %r" % mp)
check(j["max_ulp"]["operands"]["layout"] == "gemm" and
      j["reference"]["model"] == "gemm fp16 in, binary32 acc, sequential",
      "F operands/model")
if j.get("plot"):
    with open(j["plot"], "rb") as fp:
        check(fp.read(8) == b"\x89PNG\r\n\x1a\n", "F plot is a PNG")
else:
    # no gnuplot here: the data and the script are written, no PNG
    check(os.path.exists(p("plot/compare_map.dat")) and
          os.path.exists(p("plot/compare_map.gp")) and
          not os.path.exists(p("plot/compare_map.png")),
          "F plot without gnuplot: data and script only")
# batched: the tile in batch 2 of 3
C3 = np.stack([C, C, C])
Ck3 = C3.copy()
Ck3[2] = Ck
np.save(p("f_r3.npy"), C3)
np.save(p("f_k3.npy"), Ck3)
rc, j, _ = jrun(p("f_k3.npy"), p("f_r3.npy"), "--tile", "16x16")
check(rc == 1 and j["gemm"]["batches_with_differences"] == 1 and
      j["gemm"]["tiles"]["list"][0]["differ"] == 256, "F batched")

# ---- G. a dropped K-block ---------------------------------------------------
A2 = A.copy()
A2[:, 32:48] = 0
Cd = (A2.astype(np.float32) @ B.astype(np.float32)).astype(np.float16)
np.save(p("g_k.npy"), Cd)
rc, j, _ = jrun(p("g_k.npy"), p("f_r.npy"), "--kblock", 16, "--inputs",
                p("f_a.npy"), p("f_b.npy"))
kb = j["kblocks"]
blocks = {b["block"]: b for b in kb["blocks"]}
check(rc == 1 and abs(blocks[2]["multiple"] + 1) < 0.02 and
      blocks[2]["share"] > 0.98 and "block 2" in kb["verdict"],
      "G dropped block: %r" % kb)
rc, j, _ = jrun(p("f_k.npy"), p("f_r.npy"), "--kblock", 16, "--inputs",
                p("f_a.npy"), p("f_b.npy"))
check("no K-block explains" in j["kblocks"]["verdict"], "G rounding-like tile")

# ---- H. against the exact result --------------------------------------------
t = rng.standard_normal(5000) * np.exp(rng.uniform(-5, 5, 5000))
r32 = t.astype(np.float32)
k32 = r32.copy()
k32.view(np.uint32)[:] += rng.integers(0, 4, 5000).astype(np.uint32)
np.save(p("h_t.npy"), t)
np.save(p("h_r.npy"), r32)
np.save(p("h_k.npy"), k32)
rc, j, so = jrun(p("h_k.npy"), p("h_r.npy"), "--exact", p("h_t.npy"))
ex = j["exact"]


def rel(v):
    e = np.abs(v.astype(np.float64) - t) / np.abs(t)
    s = np.sort(e)
    kth = lambda q: s[int(np.ceil(q * len(s))) - 1]
    return e.max(), kth(0.5), kth(0.99)


for side, v in (("kernel", k32), ("reference", r32)):
    mx, med, p99 = rel(v)
    check(ex[side]["max"] == mx and ex[side]["median"] == med and
          ex[side]["p99"] == p99, "H %s: %r vs numpy %r" %
          (side, ex[side], (mx, med, p99)))
check("less accurate than the reference" in ex["sentence"] and
      abs(ex["max_ratio"] - rel(k32)[0] / rel(r32)[0]) < 1e-12,
      "H sentence: " + ex["sentence"])

# ---- I. the model line from safetensors metadata -----------------------------
st_write(p("i.safetensors"), {"out": ("F16", (1000,), r16.tobytes())},
         {"fplab-model": "sum order=pairwise:8 acc=binary32"})
rc, j, so = jrun(p("b_r16.npy"), p("i.safetensors"))
check(rc == 0 and j["reference"]["model"] == "sum order=pairwise:8 acc=binary32"
      and "model      sum order=pairwise:8 acc=binary32" in so, "I model")

# ---- J. threads ---------------------------------------------------------------
big_r = rng.standard_normal(1 << 20).astype(np.float32)
big_k = big_r.copy()
big_k.view(np.uint32)[rng.integers(0, 1 << 20, 5000)] += 2
np.save(p("j_r.npy"), big_r)
np.save(p("j_k.npy"), big_k)
rc1, j1, _ = jrun(p("j_k.npy"), p("j_r.npy"), "--ulp", 1, "--threads", 1)
rc2, j2, _ = jrun(p("j_k.npy"), p("j_r.npy"), "--ulp", 1, "--threads", 2)
check(rc1 == rc2 == 1 and j1 == j2, "J 1 vs 2 threads")

# ---- K. a square GEMM: inputs shaped like the output are a GEMM's when ------
# the user says so (--tile), not element-wise operands -----------------------
ka = rng.uniform(-2, 2, (32, 32)).astype(np.float32)
kb = rng.uniform(-2, 2, (32, 32)).astype(np.float32)
kd = (ka.astype(np.float64) @ kb.astype(np.float64)).astype(np.float32)
np.save(p("k_a.npy"), ka)
np.save(p("k_b.npy"), kb)
np.save(p("k_d.npy"), kd)
rc, j, so = jrun(p("k_d.npy"), p("k_d.npy"), "--inputs", p("k_a.npy"),
                 p("k_b.npy"), "--tile", "8x8")
check(rc == 0 and j["max_ulp"]["operands"]["layout"] == "gemm" and
      "operands there (GEMM, K = 32)" in so, "K square GEMM with --tile")
rc, j, so = jrun(p("k_d.npy"), p("k_d.npy"), "--inputs", p("k_a.npy"),
                 p("k_b.npy"))
check(rc == 0 and j["max_ulp"]["operands"]["layout"] == "elementwise",
      "K same shapes without --gemm: element-wise")

finish("compare_cli", 74)
