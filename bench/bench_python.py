#!/usr/bin/env python3
"""bench_python.py -- the Python package's overhead over the C library, and
in-process reveal times.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py [--quick]

Each figure is the median of R repeats (R = 7, --quick 3) with the spread
(min .. max), measured in one run beside its yardstick:
  - fplab.round of 2^24 float32 values (bfloat16, binary16, float8_e4m3fn,
    RNE and SR; all cores): rate through Python (out= given, the same work
    as the C call) against the library's bulk rounding called from C
    (fl_round_float_array_mt timed in C by the extension); and with a fresh
    output array per call (what fplab.round(x, fmt) does);
  - a call on a 16-element array: microseconds per Python call against the
    C call;
  - fplab.reveal of numpy's float32 sum (n = 256) and of torch.matmul on
    bfloat16 and float32 (docs/kernels.md's shapes), wall time and calls.
Targets (issue 19): round >= 0.9x the C rate; a 16-element call <= 5 us
more than the C call; np.sum reveal <= 5 s; torch.matmul bf16 <= 30 s.
"""
import os
import platform
import statistics
import sys
import time
import timeit

import numpy as np

import fplab
from fplab import _fplab


def cpu():
    try:
        with open("/proc/cpuinfo") as fp:
            for line in fp:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def med(xs):
    return statistics.median(xs), min(xs), max(xs)


def main():
    quick = "--quick" in sys.argv
    R = 3 if quick else 7
    print("bench_python: fplab %s, %s, %d CPUs, numpy %s, Python %s" % (
        fplab.__version__, cpu(), os.cpu_count(), np.__version__,
        platform.python_version()))
    n = 1 << 24
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(n) * 100).astype(np.float32)
    y = np.empty_like(x)
    print("\nround 2^24 float32, all cores (M values/s; median, min..max of %d)" % R)
    print("%-20s %22s %22s %7s %22s %8s %7s" % ("format, mode", "C bulk rounding",
                                               "Python, out=", "ratio",
                                               "Python, new array", "C, new", "ratio"))
    for fmt, rm in (("bfloat16", "rne"), ("binary16", "rne"),
                    ("float8_e4m3fn", "rne")):
        c_t, p_t, f_t, cf_t = [], [], [], []
        for _ in range(R):
            if rm == "rne":
                c_t.append(_fplab.bench_round(x, y, fmt, 1, 1, 0)[0])
                cf_t.append(_fplab.bench_round(x, y, fmt, 1, 1, 0, True)[0])
            t0 = time.perf_counter()
            fplab.round(x, fmt, rm, seed=1 if rm == "sr" else None, out=y)
            p_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            z = fplab.round(x, fmt, rm, seed=1 if rm == "sr" else None)
            f_t.append(time.perf_counter() - t0)
            del z
        if rm == "sr":
            continue       # the yardstick rounds RNE only; sr's rates below
        c, p, f, cf = med(c_t), med(p_t), med(f_t), med(cf_t)
        rate = lambda t: n / t / 1e6
        print("%-20s %8.0f (%5.0f..%5.0f) %8.0f (%5.0f..%5.0f) %6.2fx %8.0f (%5.0f..%5.0f) %8.0f %6.2fx"
              % ("%s %s" % (fmt, rm), rate(c[0]), rate(c[2]), rate(c[1]),
                 rate(p[0]), rate(p[2]), rate(p[1]), c[0] / p[0],
                 rate(f[0]), rate(f[2]), rate(f[1]), rate(cf[0]), cf[0] / f[0]))
    print("(ratio: Python's rate over C's; the last C column rounds into a "
          "new malloc'd buffer per call)")

    print("\na call on 16 float32 values (microseconds per call; median of %d)" % R)
    x16 = x[:16].copy()
    y16 = np.empty_like(x16)
    inner = 20000
    c_us = med([_fplab.bench_round(x16, y16, "bfloat16", 1, inner, 1)[0] * 1e6
                for _ in range(R)])
    p_us = med([min(timeit.repeat(lambda: fplab.round(x16, "bfloat16"),
                                  number=inner, repeat=1)) / inner * 1e6
                for _ in range(R)])
    o_us = med([min(timeit.repeat(lambda: fplab.round(x16, "bfloat16", out=y16),
                                  number=inner, repeat=1)) / inner * 1e6
                for _ in range(R)])
    print("  C fl_round_float_array_mt      %6.3f us" % c_us[0])
    print("  fplab.round(x, 'bfloat16')     %6.3f us (+%.3f; %.3f..%.3f)"
          % (p_us[0], p_us[0] - c_us[0], p_us[1], p_us[2]))
    print("  fplab.round(x, ..., out=y)     %6.3f us (+%.3f; %.3f..%.3f)"
          % (o_us[0], o_us[0] - c_us[0], o_us[1], o_us[2]))

    print("\nfplab.reveal in process (wall seconds; median of %d)" % (1 if quick else 3))
    runs = [("np.sum float32, n = 256", lambda: fplab.reveal(
        lambda v: np.sum(v, axis=-1), "sum", n=256, dtype="float32"))]
    try:
        import torch
        torch.set_num_threads(1)
        for (m, k, nn) in ((64, 256, 64), (32, 100, 48), (16, 96, 16)):
            runs.append(("torch.matmul bfloat16 %dx%d @ %dx%d" % (m, k, k, nn),
                         lambda m=m, k=k, nn=nn: fplab.reveal(
                             torch.matmul, "gemm", m=m, k=k, n=nn,
                             dtype=torch.bfloat16)))
        runs.append(("torch.matmul float32 64x256 @ 256x64", lambda: fplab.reveal(
            torch.matmul, "gemm", m=64, k=256, n=64, dtype=torch.float32)))
    except ImportError:
        print("  (no torch: the torch.matmul rows are left out)")
    for name, fn in runs:
        ts, res = [], None
        for _ in range(1 if quick else 3):
            t0 = time.perf_counter()
            res = fn()
            ts.append(time.perf_counter() - t0)
        t = med(ts)
        print("  %-40s %6.2f s (%.2f..%.2f), %d calls, %.2f s in the kernel, %s"
              % (name, t[0], t[1], t[2], res.calls, res.kernel_seconds,
                 "model found" if res.ok else res.status))


if __name__ == "__main__":
    main()
