#!/usr/bin/env python3
"""ref_clients.py — `fplab ref` against real clients, bit for bit.

    ref_clients.py FPLAB WORKDIR numpy|torch

numpy (python3-numpy):
  * a sequential np.float16 loop  s = np.float16(0); for x in row:
    s = np.float16(s + x).  numpy's float16 scalar add converts both
    operands to float32, adds, and rounds back (npy_half_to_float /
    npy_float_to_half in numpy's scalar math); float32 has 24 >= 2*11+2
    bits, so that double rounding is the correctly rounded binary16 sum
    (Figueroa 1995).  Model: in=binary16 acc=binary16, sequential,
    epilogue=init (the loop starts at +0);
  * the same loop in np.float32 (acc=binary32), and one started at row[0]
    (plain sequential);
  * a sequential float32 GEMM loop s = float32(s + float32(a*b)) from +0:
    `ref gemm --epilogue init`;
  * np.matmul on float32, which goes to cblas_sgemm of the BLAS numpy links
    (Debian: the reference BLAS, libblas.so.3).  Netlib's SGEMM
    (BLAS/SRC/sgemm.f, "Form C := alpha*A*B + beta*C") sets C(I,J) = ZERO
    for beta = 0, then for L = 1..K: TEMP = ALPHA*B(L,J); C(I,J) = C(I,J) +
    TEMP*A(I,L); the transposed branches accumulate TEMP = TEMP +
    A(L,I)*B(L,J) from ZERO.  With alpha = 1 every product is rounded to
    float32 and added in order from +0: the model is
    `order=sequential products=rounded epilogue=init`;
  * np.sum(x, axis=-1) on float32 rows: `--order numpy` (numpy's
    pairwise_sum after the reduction's +0), n < 8, 8..128, > 128, odd;
    and on float16 rows (numpy accumulates float16 in float32 and rounds
    once at the end: acc=binary32 out=binary16).
torch (python3-torch, CPU):
  * torch.sum and torch.matmul on float32 against a sequential-model
    reference through `fplab compare --torch-defaults --json`: the verdict
    must agree with torch.testing.assert_close on the same tensors and the
    counts must add up.

Exit 0 pass, 1 fail, 77 when numpy (or torch) is missing.  The seed is
printed; FPLAB_TEST_SEED replays it.
"""
import json
import os
import subprocess
import sys
import time

FPLAB, WORK, PART = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)
if PART == "torch":
    try:
        import torch
    except ImportError:
        print("torch is not installed: skipped")
        sys.exit(77)

seed = int(os.environ.get("FPLAB_TEST_SEED") or (time.time_ns() % (1 << 32)))
print(f"ref_clients {PART}: seed {seed} (replay with FPLAB_TEST_SEED={seed})")
rng = np.random.default_rng(seed)
os.makedirs(WORK, exist_ok=True)
failures = 0
cases = 0


def fail(msg):
    global failures
    failures += 1
    if failures <= 20:
        print("FAIL", msg)


def ref(*args):
    r = subprocess.run([FPLAB, "ref", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"fplab ref {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r.stdout


def path(name):
    return os.path.join(WORK, name)


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def same_bits(what, got, want):
    """Element-wise bit comparison; returns the number of elements checked."""
    global cases
    g, w = bits(got).ravel(), bits(want).ravel()
    if g.shape != w.shape:
        fail(f"{what}: shape {got.shape} vs {want.shape}")
        return 0
    bad = np.nonzero(g != w)[0]
    if len(bad):
        i = bad[0]
        fail(f"{what}: {len(bad)} of {len(g)} elements differ; first at {i}: "
             f"fplab 0x{int(g[i]):x} ({got.ravel()[i]!r}), numpy 0x{int(w[i]):x} "
             f"({want.ravel()[i]!r})")
    cases += len(g)
    return len(g)


def values(shape, dtype, special=0.02, wide=False, axis=-1, nan_inf=True):
    """Random values with sign, spread exponents (so sums round and cancel)
    and, at rate `special`, zeros of both signs, subnormals, infinities or
    NaNs.  When a NaN operand meets the default NaN of an invalid operation
    (inf - inf, 0 * inf), which one survives depends on the operand order
    the C compiler chose for numpy's `a + b` (IEEE 754 leaves it open), so
    no model can promise its bits; every other result is reproduced bit
    for bit.  Hence the elements that one sum adds (the 1-D lines along
    `axis`: the rows of a sum, B's columns in a GEMM) hold infinities and
    huge values (sums that overflow) or NaNs, never both; nan_inf=False
    leaves out NaNs, infinities and huge values altogether (a GEMM's other
    operand: A's row i meets every column of B)."""
    info = np.finfo(dtype)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-8 if not wide else -30,
                                                           9 if not wide else 30, shape))
    x = x.astype(dtype)
    if special:
        m = rng.random(shape) < special
        pick = rng.integers(0, 5 if nan_inf else 4, shape)
        sv = np.array([0.0, -0.0, float(info.tiny) / 4, -float(info.tiny) / 2,
                       np.inf], dtype=dtype)
        x[m] = sv[pick[m]]
        if nan_inf:
            # one class per line along `axis`: a third of the lines NaN
            lines = list(shape) if len(shape) else [1]
            lines[axis] = 1
            nanline = np.broadcast_to(rng.integers(0, 3, lines) == 0,
                                      shape if len(shape) else (1,))
            nanline = nanline.reshape(shape)
            # lines chosen for NaNs: their infinities become NaNs
            x[m & nanline & np.isinf(x)] = np.nan
            # huge values (sums overflow: inf - inf happens) only in lines
            # without NaNs, for the reason above
            big = (rng.random(shape) < special) & ~nanline
            x[big] = (np.sign(rng.standard_normal(big.sum())) *
                      float(info.max) / 2).astype(dtype)
    return x


def check_model_line(what, outfile, want_substr):
    side = outfile + ".model"
    line = open(side).read().strip() if os.path.exists(side) else ""
    if want_substr not in line:
        fail(f"{what}: model line '{line}' lacks '{want_substr}'")


# ---------------------------------------------------------------------------
def numpy_part():
    with np.errstate(all="ignore"):
        # 1. sequential float16 loop from +0
        for n in (1, 5, 16, 33, 200):
            x = values((12, n), np.float16, special=0.03)
            x[0, :] = -0.0                       # a row of -0: +0 from the loop
            want = np.empty(12, np.float16)
            for r in range(12):
                s = np.float16(0)
                for v in x[r]:
                    s = np.float16(s + v)
                want[r] = s
            np.save(path("h.npy"), x)
            ref("sum", path("h.npy"), "--out", path("hs.npy"), "--acc", "binary16",
                "--epilogue", "init")
            same_bits(f"float16 loop n={n}", np.load(path("hs.npy")), want)
            check_model_line("float16 loop", path("hs.npy"),
                             "in=binary16 acc=binary16 acc-rm=rne products=rounded "
                             "order=sequential")
        # numpy's float16 scalar add is the correctly rounded binary16 sum:
        # every pair of a sample against `fplab ref add` (one rounding)
        a = values((8000,), np.float16, special=0.05)
        b = values((8000,), np.float16, special=0.05)
        np.save(path("ha.npy"), a)
        np.save(path("hb.npy"), b)
        ref("add", path("ha.npy"), path("hb.npy"), "--out", path("hc.npy"))
        same_bits("float16 scalar add", np.load(path("hc.npy")),
                  np.array([np.float16(p + q) for p, q in zip(a, b)], np.float16))

        # 2. sequential float32 loops: from +0, and from row[0]
        for n in (1, 7, 64, 301):
            x = values((10, n), np.float32, special=0.02, wide=True)
            x[1, :] = -0.0
            w0 = np.empty(10, np.float32)
            w1 = np.empty(10, np.float32)
            for r in range(10):
                s = np.float32(0)
                for v in x[r]:
                    s = np.float32(s + v)
                w0[r] = s
                s = x[r, 0]
                for v in x[r, 1:]:
                    s = np.float32(s + v)
                w1[r] = s
            np.save(path("f.npy"), x)
            ref("sum", path("f.npy"), "--out", path("fs0.npy"), "--epilogue", "init")
            ref("sum", path("f.npy"), "--out", path("fs1.npy"))
            same_bits(f"float32 loop from +0 n={n}", np.load(path("fs0.npy")), w0)
            same_bits(f"float32 loop from row[0] n={n}", np.load(path("fs1.npy")), w1)

        # 3. a sequential float32 GEMM loop (products rounded, from +0);
        # element (i, j) adds A's row i times B's column j: NaNs and
        # infinities in one operand (its lines along its own reduction
        # axis apart), the other without (values()), by turns
        for case, (m, k, n) in enumerate(((3, 1, 4), (6, 19, 7), (5, 40, 3),
                                          (4, 33, 5))):
            A = values((m, k), np.float32, special=0.02, axis=-1,
                       nan_inf=case % 2 == 0)
            B = values((k, n), np.float32, special=0.02, axis=0,
                       nan_inf=case % 2 == 1)
            want = np.empty((m, n), np.float32)
            for i in range(m):
                for j in range(n):
                    s = np.float32(0)
                    for l in range(k):
                        s = np.float32(s + np.float32(A[i, l] * B[l, j]))
                    want[i, j] = s
            np.save(path("A.npy"), A)
            np.save(path("B.npy"), B)
            ref("gemm", path("A.npy"), path("B.npy"), "--out", path("D.npy"),
                "--epilogue", "init")
            same_bits(f"float32 GEMM loop {m}x{k}x{n}", np.load(path("D.npy")), want)
            # the same through --ta/--tb and a batch of two
            np.save(path("At.npy"), np.ascontiguousarray(A.T))
            np.save(path("Bt.npy"), np.ascontiguousarray(B.T))
            ref("gemm", path("At.npy"), path("Bt.npy"), "--ta", "--tb", "--out",
                path("Dt.npy"), "--epilogue", "init")
            same_bits(f"float32 GEMM loop --ta --tb {m}x{k}x{n}",
                      np.load(path("Dt.npy")), want)
            np.save(path("A3.npy"), np.stack([A, A[::-1]]))
            ref("gemm", path("A3.npy"), path("B.npy"), "--out", path("D3.npy"),
                "--epilogue", "init", "--threads", "2")
            D3 = np.load(path("D3.npy"))
            same_bits(f"float32 GEMM loop batch {m}x{k}x{n}", D3[0], want)
            same_bits(f"float32 GEMM loop batch reversed {m}x{k}x{n}", D3[1], want[::-1])

        # 4. np.matmul (reference BLAS): sequential from +0, products rounded
        for (m, k, n) in ((2, 3, 2), (17, 33, 9), (64, 100, 48), (5, 1000, 7)):
            A = values((m, k), np.float32, special=0, wide=True)
            B = values((k, n), np.float32, special=0, wide=True)
            np.save(path("A.npy"), A)
            np.save(path("B.npy"), B)
            ref("gemm", path("A.npy"), path("B.npy"), "--out", path("M.npy"),
                "--order", "sequential", "--epilogue", "init")
            same_bits(f"np.matmul float32 {m}x{k}x{n}", np.load(path("M.npy")),
                      np.matmul(A, B))
            # A stored transposed (numpy passes TransA to BLAS)
            At = np.ascontiguousarray(A.T)
            np.save(path("At.npy"), At)
            ref("gemm", path("At.npy"), path("B.npy"), "--ta", "--out", path("M2.npy"),
                "--epilogue", "init")
            same_bits(f"np.matmul float32 A.T {m}x{k}x{n}", np.load(path("M2.npy")),
                      np.matmul(At.T, B))
        # batched: np.matmul over a stack
        A = values((3, 8, 21), np.float32, special=0)
        B = values((3, 21, 5), np.float32, special=0)
        np.save(path("A.npy"), A)
        np.save(path("B.npy"), B)
        ref("gemm", path("A.npy"), path("B.npy"), "--out", path("M.npy"),
            "--epilogue", "init")
        same_bits("np.matmul float32 batch 3x8x21x5", np.load(path("M.npy")),
                  np.matmul(A, B))

        # 5. np.sum along the last axis: --order numpy
        for n in (1, 2, 5, 7, 8, 9, 15, 16, 17, 33, 100, 127, 128, 129, 130, 255,
                  256, 257, 1000, 1001, 4097):
            x = values((16, n), np.float32, special=0.01, wide=True)
            x[0, :] = -0.0
            np.save(path("p.npy"), x)
            ref("sum", path("p.npy"), "--out", path("ps.npy"), "--order", "numpy")
            same_bits(f"np.sum float32 n={n}", np.load(path("ps.npy")),
                      np.sum(x, axis=-1))
            if n in (7, 100, 257, 1001):
                h = values((6, n), np.float16, special=0.01)
                np.save(path("ph.npy"), h)
                ref("sum", path("ph.npy"), "--out", path("phs.npy"), "--order", "numpy",
                    "--out-format", "binary16")
                same_bits(f"np.sum float16 n={n}", np.load(path("phs.npy")),
                          np.sum(h, axis=-1))
        # the sequential model is NOT numpy's sum: a planted difference
        x = np.array([[1.0] + [2.0 ** -24] * 15], np.float32)
        np.save(path("p.npy"), x)
        ref("sum", path("p.npy"), "--out", path("ps.npy"))
        if bits(np.load(path("ps.npy")))[0] == bits(np.sum(x, axis=-1))[0]:
            fail("sequential sum of 1 + 15 * 2^-24 equals np.sum's: the test "
                 "cannot tell orders apart")


# ---------------------------------------------------------------------------
def compare(kernel, reference, extra=()):
    js = path("verdict.json")
    r = subprocess.run([FPLAB, "compare", kernel, reference, "--torch-defaults",
                        "--json", js, *extra], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit(f"fplab compare failed ({r.returncode}): {r.stderr}")
    return r.returncode, json.load(open(js)), r.stdout


def torch_part():
    global cases
    torch.manual_seed(seed % (1 << 31))
    torch.set_num_threads(2)
    outcomes = {0: 0, 1: 0}
    for trial in range(8):
        # sums: moderate values, and large cancelling ones (a hard case
        # where the cascade and the sequential order disagree beyond tolerance)
        rows, n = 16, int(rng.integers(50, 5000))
        if trial % 2 == 0:
            x = torch.randn(rows, n, dtype=torch.float32)
        else:
            x = (torch.randn(rows, n) * 1e4).to(torch.float32)
            x[:, 0] = 1e8
            x[:, 1] = -1e8
        ks = torch.sum(x, dim=-1)
        np.save(path("tx.npy"), x.numpy())
        np.save(path("tk.npy"), ks.numpy())
        ref("sum", path("tx.npy"), "--out", path("tr.npy"))
        rc, v, text = compare(path("tk.npy"), path("tr.npy"),
                              ("--inputs", path("tx.npy")))
        r = torch.from_numpy(np.load(path("tr.npy")))
        try:
            torch.testing.assert_close(ks, r)
            want = 0
        except AssertionError:
            want = 1
        check_verdict(f"torch.sum {rows}x{n}", rc, want, v, rows)
        outcomes[rc] += 1
        # matmul
        m, k, nn = int(rng.integers(2, 40)), int(rng.integers(2, 300)), int(rng.integers(2, 40))
        A = torch.randn(m, k, dtype=torch.float32)
        B = torch.randn(k, nn, dtype=torch.float32)
        if trial % 3 == 2:
            A = A * 1e3
            A[:, 0] = 3e7
            B[0, :] = 1.0
            A[:, 1] = -3e7
            B[1, :] = 1.0
        Km = torch.matmul(A, B)
        np.save(path("tA.npy"), A.numpy())
        np.save(path("tB.npy"), B.numpy())
        np.save(path("tK.npy"), Km.numpy())
        ref("gemm", path("tA.npy"), path("tB.npy"), "--out", path("tR.npy"))
        rc, v, text = compare(path("tK.npy"), path("tR.npy"),
                              ("--inputs", path("tA.npy"), path("tB.npy"), "--gemm"))
        r = torch.from_numpy(np.load(path("tR.npy")))
        try:
            torch.testing.assert_close(Km, r)
            want = 0
        except AssertionError:
            want = 1
        check_verdict(f"torch.matmul {m}x{k}x{nn}", rc, want, v, m * nn)
        outcomes[rc] += 1
    print(f"torch verdicts: {outcomes[0]} within tolerance, {outcomes[1]} outside")
    if outcomes[0] == 0:
        fail("no torch case was within tolerance: the check cannot fail the other way")
    if outcomes[1] == 0:
        fail("no torch case was outside tolerance: the planted cancellations "
             "should have been")


def check_verdict(what, rc, want, v, n):
    global cases
    cases += 1
    c = v["counts"]
    if rc != want:
        fail(f"{what}: fplab compare exit {rc}, torch.testing.assert_close says {want}")
    if v["elements"] != n:
        fail(f"{what}: {v['elements']} elements, want {n}")
    hist = sum(b["count"] for b in v["ulp_histogram"])
    if hist != c["value_pairs"]:
        fail(f"{what}: histogram holds {hist}, value pairs {c['value_pairs']}")
    if c["identical"] > n or c["outside_tolerance"] > n:
        fail(f"{what}: counts exceed the element count: {c}")
    if (c["outside_tolerance"] > 0) != (rc == 1):
        fail(f"{what}: {c['outside_tolerance']} outside tolerance but exit {rc}")
    if ("in=binary32" not in (v["reference"]["model"] or "")):
        fail(f"{what}: the verdict does not carry the reference's model line")
    hist0 = next((b["count"] for b in v["ulp_histogram"] if b["lo"] == 0), 0)
    nonan = c["value_pairs"]
    if hist0 > nonan or (c["identical"] != hist0 + c["nan_both"]
                         - c["nan_payload_differs"]):
        fail(f"{what}: identical {c['identical']} vs 0-ulp pairs {hist0}")


if PART == "numpy":
    numpy_part()
else:
    torch_part()
print(f"ref_clients {PART}: {cases} {'elements' if PART == 'numpy' else 'verdicts'} checked, {failures} failures")
if PART == "torch" and cases != 16:
    fail(f"{cases} torch verdicts checked, want 16")
if PART == "numpy" and cases < 15000:
    fail(f"only {cases} elements checked")
sys.exit(1 if failures else 0)
