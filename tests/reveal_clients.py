#!/usr/bin/env python3
"""reveal_clients.py — `fplab reveal` on real kernels, then an independent
replay of the model it wrote.

    reveal_clients.py FPLAB WORKDIR CLIENT [VALIDATE [FRESH [serve]]]

CLIENT is one of the names in CLIENTS below (numpy: np.sum along the last
axis in float32 and float16, np.matmul in float32 through the BLAS numpy
links; torch on the CPU: torch.sum and torch.matmul in float32 and
bfloat16).  The kernels are the committed scripts tests/reveal/kernel_*.py.

1. `fplab reveal` with VALIDATE validation cases (default 20000): exit 0,
   the model file written, the model's keys as recorded in docs/kernels.md,
   the kernel call count printed (and at most max_calls where the client
   says so: np.sum float32 with n = 256, the GEMMs called 2-D).  The
   kernel is a command per call, or with serve (the client's, or the
   argument `serve`) a server started once (tests/reveal/serve_*.py).
2. FRESH (default 20000) new rows (sum) or output elements (matmul) made
   here with numpy's generator (seed printed; FPLAB_TEST_SEED replays):
   random rows at many scales, cancelling rows, wide exponent ranges,
   rows with an infinity or one NaN.  The kernel runs in this process, the
   model through `fplab ref --model`; every result must be bit-identical,
   at the revealed length and, where the model's order is a family, at
   the other lengths `alt` (n for sums, k for GEMMs) never revealed.

Exit 0 pass, 1 fail, 77 when numpy (or torch) is missing.
"""
import os
import re
import subprocess
import sys
import time

import testlib  # tests/testlib.py, beside this file

HERE = os.path.dirname(os.path.abspath(__file__))

# The bfloat16 GEMM's keys by kernel: oneDNN's (fused products, a binary32
# accumulator, subnormals flushed) and ATen's own loops (c10::BFloat16
# arithmetic: every product and every partial sum rounded to bfloat16).
ONEDNN_CPU = ["avx512bw", "avx512vl", "avx512dq"]
ONEDNN_BF16 = ["acc=binary32", "products=fused", "ftz=1", "daz=1"]
ATEN_BF16 = ["acc=bfloat16", "products=rounded", "order=sequential",
             "ftz=0", "daz=0", "epilogue=init"]
SMALL_BF16_BY_CPU = [(["avx512_bf16"], ONEDNN_BF16 + ["order=pairswap:512"]),
                     (ONEDNN_CPU, ONEDNN_BF16),
                     ([], ATEN_BF16)]

CLIENTS = {
    "numpy-sum-float32": dict(lib="numpy", op="sum", dtype="float32", n=256,
                              keys=["order=numpy", "acc=binary32", "acc-rm=rne",
                                    "out=binary32", "epilogue=last"],
                              max_calls=10),
    "numpy-sum-float16": dict(lib="numpy", op="sum", dtype="float16", n=256,
                              keys=["order=numpy", "acc=binary32", "out=binary16",
                                    "out-rm=rne"]),
    "numpy-matmul-float32": dict(lib="numpy", op="matmul", dtype="float32",
                                 m=64, k=256, n=64, batch=32,
                                 keys=["order=sequential", "products=rounded",
                                       "acc=binary32", "epilogue=init"]),
    "torch-sum-float32": dict(lib="torch", op="sum", dtype="float32", n=256,
                              keys=["acc=binary32", "acc-rm=rne", "order=cascade:8"],
                              alt=[5, 37, 1000, 4099]),
    "torch-sum-bfloat16": dict(lib="torch", op="sum", dtype="bfloat16", n=256,
                               keys=["acc=binary32", "out=bfloat16", "out-rm=rne",
                                     "order=cascade:8:halves"],
                               alt=[9, 100, 1500]),
    "torch-sum-float16": dict(lib="torch", op="sum", dtype="float16", n=200,
                              keys=["acc=binary32", "out=binary16", "out-rm=rne",
                                    "order=cascade:8:pairs", "nan=sign"],
                              alt=[7, 64, 1000, 3001]),
    "torch-matmul-float32": dict(lib="torch", op="matmul", dtype="float32",
                                 m=64, k=256, n=64, batch=32,
                                 keys=["order=sequential", "products=rounded",
                                       "acc=binary32", "epilogue=init"]),
    # PyTorch 1.13 takes oneDNN's bfloat16 GEMM only where the CPU has
    # AVX-512 BW, VL and DQ (ATen's mkldnn_bf16_device_check); there
    # 64 x 256 x 64 takes the AMX kernel on a CPU with AMX (tiles of 32
    # terms, even and odd terms in two lanes each), the VDPBF16PS one
    # without AMX (AMD Zen 4), as 16 x 96 x 16 does everywhere:
    # pairswap:512.  Without AVX-512 (AMD Zen 3) ATen's own loops run:
    # each product rounded to bfloat16 and added to a bfloat16 sum, in
    # order.  The first entry of keys_by_cpu whose flags the CPU has all
    # of decides; an entry with no order leaves the order unchecked.
    "torch-matmul-bfloat16": dict(lib="torch", op="matmul", dtype="bfloat16",
                                  m=64, k=256, n=64, batch=32, keys=["out=bfloat16"],
                                  keys_by_cpu=[(["amx_bf16"], ONEDNN_BF16 + ["order=tiles:32:2"])]
                                  + SMALL_BF16_BY_CPU,
                                  alt=[100, 1031]),
    # called 2-D: reveal batches by itself (the 422 calls)
    "torch-matmul-bfloat16-2d": dict(lib="torch", op="matmul", dtype="bfloat16",
                                     m=16, k=96, n=16, max_calls=20,
                                     keys=["out=bfloat16"],
                                     keys_by_cpu=SMALL_BF16_BY_CPU,
                                     alt=[33, 520]),
    # kernels that stay up
    "numpy-sum-float32-serve": dict(lib="numpy", op="sum", dtype="float32",
                                    n=256, serve=True, max_calls=12,
                                    keys=["order=numpy", "acc=binary32"]),
    "torch-matmul-bfloat16-serve": dict(lib="torch", op="matmul",
                                        dtype="bfloat16", m=16, k=96, n=16,
                                        serve=True, max_calls=20,
                                        keys=["out=bfloat16"],
                                        keys_by_cpu=SMALL_BF16_BY_CPU),
}


def cpu_flags():
    """The CPU's feature flags (Linux /proc/cpuinfo; empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("flags"):
                    return set(ln.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    if len(sys.argv) < 4 or sys.argv[3] not in CLIENTS:
        print(__doc__)
        sys.exit(2)
    fplab, work, name = sys.argv[1], sys.argv[2], sys.argv[3]
    validate = int(sys.argv[4]) if len(sys.argv) > 4 else 20000
    fresh = int(sys.argv[5]) if len(sys.argv) > 5 else 20000
    c = dict(CLIENTS[name])
    if len(sys.argv) > 6 and sys.argv[6] == "serve":
        c["serve"] = True
    try:
        import numpy as np
    except ImportError:
        print("numpy is not installed: skipped")
        sys.exit(77)
    torch = None
    if c["lib"] == "torch":
        try:
            import torch
        except ImportError:
            print("torch is not installed: skipped")
            sys.exit(77)
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, name + ".model")
    if os.path.exists(model):
        os.remove(model)
    script = os.path.join(HERE, "reveal", "kernel_%s.py" % c["lib"])

    # ---- 1. reveal ----
    if c["op"] == "sum":
        shape = ["sum", "--n", str(c["n"])]
        kargs = ["sum", c["dtype"], "{in}", "{out}"]
    else:
        shape = ["gemm", "--m", str(c["m"]), "--k", str(c["k"]), "--n",
                 str(c["n"])]
        if "batch" in c:
            shape += ["--batch", str(c["batch"])]
        kargs = ["matmul", c["dtype"], "{in}", "{in2}", "{out}"]
    if c.get("serve"):
        kernel = ["--serve", "--", sys.executable,
                  os.path.join(HERE, "reveal", "serve_%s.py" % c["lib"])]
    else:
        kernel = ["--", sys.executable, script] + kargs
    cmd = ([fplab, "reveal"] + shape +
           ["--dtype", c["dtype"], "--model-out", model, "--validate",
            str(validate), "--plot", os.path.join(work, name + "_plot")] +
           kernel)
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.time() - t0
    with open(os.path.join(work, name + ".log"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        print(r.stdout[-3000:] + r.stderr[-2000:])
        fail("%s: fplab reveal exited %d" % (name, r.returncode))
    line = [ln for ln in open(model).read().splitlines()
            if ln and not ln.startswith("#")]
    if len(line) != 1:
        fail("%s: the model file holds %d model lines" % (name, len(line)))
    line = " " + line[0] + " "
    keys = list(c["keys"])
    if "keys_by_cpu" in c:
        flags = cpu_flags()
        need, more = [(f, k) for f, k in c["keys_by_cpu"]
                      if all(x in flags for x in f)][0]
        keys += more
        print("%s: the CPU has %s: expecting %s%s" % (
            name, " ".join(need) if need else "no AVX-512", " ".join(more),
            "" if any(k.startswith("order=") for k in more)
            else " (the order is not checked, only the replay)"))
    for k in keys:
        if (" " + k) not in line:
            fail("%s: the model lacks '%s': %s" % (name, k, line[:300]))
    m = re.search(r"^kernel calls: (\d+) \(([\d.]+) s in the kernel\); reveal "
                  r"total ([\d.]+) s$", r.stdout, re.M)
    if not m:
        fail("%s: no 'kernel calls' line" % name)
    calls = int(m.group(1))
    mv = re.search(r"^validation: (\d+) of (\d+) cases bit-identical", r.stdout,
                   re.M)
    capped = re.search(r"at most \d+ calls with data", r.stdout)
    if (not mv or mv.group(1) != mv.group(2) or
            (int(mv.group(2)) < validate and not capped)):
        fail("%s: validation line missing or not complete" % name)
    if "max_calls" in c and calls > c["max_calls"]:
        fail("%s: %d kernel calls, more than %d" % (name, calls, c["max_calls"]))
    print("reveal %s: %s cases bit-identical, %d kernel calls, %.1f s (%s s in "
          "the kernel)" % (name, mv.group(2), calls, dt, m.group(2)))

    # ---- 2. fresh inputs, the kernel here, the model through fplab ref ----
    rng = np.random.default_rng(testlib.seed("fresh inputs"))
    np.seterr(all="ignore")

    def rows(R, n, specials=True):
        """float64 rows of several kinds; the caller rounds them.  At most
        one infinity or NaN per row (and none with specials=False): two
        NaNs meeting in one addition leave the result's payload to the
        implementation."""
        x = rng.standard_normal((R, n))
        kind = rng.integers(0, 8, R)
        scale = 2.0 ** rng.integers(-12, 13, R)
        x *= scale[:, None]
        for i in np.nonzero(kind == 1)[0]:       # cancellation
            h = n // 2
            x[i, h:2 * h] = -x[i, :h][::-1]
            x[i, rng.integers(0, n)] *= 1 + 2.0 ** -rng.integers(3, 20)
        for i in np.nonzero(kind == 2)[0]:       # wide exponent range
            x[i] = (rng.standard_normal(n) *
                    2.0 ** rng.integers(-40, 40, n).astype(float))
        for i in np.nonzero(kind == 3)[0]:       # positive, growing sums
            x[i] = np.abs(x[i])
        for i in np.nonzero(kind == 4)[0] if specials else []:
            x[i, rng.integers(0, n)] = [np.inf, -np.inf, np.nan][i % 3]
        return x

    def to_dtype(x):
        if c["dtype"] == "bfloat16":
            t = torch.from_numpy(x.astype(np.float32)).bfloat16()
            return t, t.view(torch.int16).numpy().view(np.uint16)
        a = x.astype(c["dtype"])
        return (torch.from_numpy(a) if torch is not None else a), a

    def bits(a):
        a = np.ascontiguousarray(a)
        return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])

    # the model file's in= says what uint16 bit patterns hold: no
    # --in-format needed, bfloat16 or not
    ref_out = os.path.join(work, name + "_ref.npy")
    line_model = open(model).read()

    def fresh_check(length, want):
        """`want` fresh cases at length (n of a sum, k of a GEMM): the kernel
        here, the model through fplab ref --model; returns the count."""
        if c["op"] == "sum":
            xt, xa = to_dtype(rows(want, length))
            if c["lib"] == "torch":
                k = torch.sum(xt, dim=-1)
                kb = (k.view(torch.int16).numpy().view(np.uint16)
                      if k.dtype == torch.bfloat16 else bits(k.numpy()))
            else:
                kb = bits(np.sum(xa, axis=-1))
            xin = os.path.join(work, name + "_x.npy")
            np.save(xin, xa)
            args = [fplab, "ref", "sum", xin]
            cases = want
        else:
            M, K, N = c["m"], length, c["n"]
            B = max(1, -(-want // (M * N)))
            A = rows(B * M, K).reshape(B, M, K)
            # contiguous, as the kernel script loads it from .npy: ATen's
            # own bfloat16 loops (a CPU without AVX-512) round differently
            # when B is a transposed view (docs/kernels.md)
            Bm = np.ascontiguousarray(np.swapaxes(
                rows(B * N, K, specials=False).reshape(B, N, K), 1, 2))
            At, Aa = to_dtype(A)
            Bt, Ba = to_dtype(Bm)
            if c["lib"] == "torch":
                k = torch.stack([torch.matmul(At[i], Bt[i]) for i in range(B)])
                kb = (k.view(torch.int16).numpy().view(np.uint16)
                      if k.dtype == torch.bfloat16 else bits(k.numpy()))
            else:
                kb = bits(np.stack([np.matmul(Aa[i], Ba[i]) for i in range(B)]))
            ain = os.path.join(work, name + "_a.npy")
            bin_ = os.path.join(work, name + "_b.npy")
            np.save(ain, Aa)
            np.save(bin_, np.ascontiguousarray(Ba))
            args = [fplab, "ref", "gemm", ain, bin_]
            cases = B * M * N
        r = subprocess.run(args + ["--model", model, "--out", ref_out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail("%s: fplab ref --model exited %d at length %d: %s" %
                 (name, r.returncode, length, r.stderr[-500:]))
        mb = bits(np.load(ref_out))
        if mb.shape != kb.shape:
            fail("%s: reference shape %s, kernel %s" % (name, mb.shape, kb.shape))
        same = int(np.sum(mb == kb))
        print("fresh %s, length %d: %d of %d results bit-identical (kernel in "
              "this process, model through fplab ref --model)" %
              (name, length, same, cases))
        if kb.size != cases or cases < want:
            fail("%s: %d cases checked, expected at least %d" % (name, kb.size,
                                                                want))
        if same != cases:
            i = int(np.nonzero((mb != kb).ravel())[0][0])
            fail("%s: length %d, element %d: kernel 0x%x, model 0x%x" %
                 (name, length, i, int(kb.ravel()[i]), int(mb.ravel()[i])))
        return cases

    length = c["n"] if c["op"] == "sum" else c["k"]
    fresh_check(length, fresh)
    if c.get("alt"):
        # a family travels: other lengths, never revealed, bit for bit
        if "# order: a family" not in line_model:
            fail("%s: the model file does not call its order a family" % name)
        for alt in c["alt"]:
            fresh_check(alt, max(256, fresh // 8))
    print("ok")


if __name__ == "__main__":
    main()
