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
    rate = lambda t: n / t / 1e6
    for threads in (0, 1):
        print("\nround 2^24 float32, %s (M values/s; median, min..max of %d "
              "interleaved runs; ratio of medians, and of the best runs)"
              % ("all cores" if threads == 0 else "1 thread", R))
        print("%-20s %20s %20s %13s %20s %8s %6s" % (
            "format", "C bulk rounding", "Python, out=", "ratio",
            "Python, new array", "C, new", "ratio"))
        for fmt in ("bfloat16", "binary16", "float8_e4m3fn"):
            c_t, p_t, f_t, cf_t = [], [], [], []
            for _ in range(R):
                c_t.append(_fplab.bench_round(x, y, fmt, 1, 1, threads)[0])
                t0 = time.perf_counter()
                fplab.round(x, fmt, out=y, threads=threads)
                p_t.append(time.perf_counter() - t0)
                cf_t.append(_fplab.bench_round(x, y, fmt, 1, 1, threads, True)[0])
                t0 = time.perf_counter()
                z = fplab.round(x, fmt, threads=threads)
                f_t.append(time.perf_counter() - t0)
                del z
            c, p, f, cf = med(c_t), med(p_t), med(f_t), med(cf_t)
            print("%-20s %6.0f (%5.0f..%5.0f) %6.0f (%5.0f..%5.0f) %5.2fx %5.2fx "
                  "%6.0f (%5.0f..%5.0f) %8.0f %5.2fx"
                  % (fmt, rate(c[0]), rate(c[2]), rate(c[1]),
                     rate(p[0]), rate(p[2]), rate(p[1]), c[0] / p[0], c[1] / p[1],
                     rate(f[0]), rate(f[2]), rate(f[1]), rate(cf[0]), cf[0] / f[0]))
    print("(ratio: Python's rate over C's; \"C, new\" rounds into a new "
          "malloc'd buffer per call, as fplab.round(x, fmt) does into a new array)")

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
        ts, cs, res = [], [], None
        for _ in range(1 if quick else 3):
            t0, c0 = time.perf_counter(), time.process_time()
            res = fn()
            ts.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
        t, c = med(ts), med(cs)
        print("  %-40s %6.2f s (%.2f..%.2f), CPU %.2f s, %d calls, %.2f s in "
              "the kernel, %s" % (name, t[0], t[1], t[2], c[0], res.calls,
                                  res.kernel_seconds,
                                  "model found" if res.ok else res.status))
    print("(CPU: the process's CPU time over every thread; on a shared machine "
          "wall time also counts the waits for a core)")


if __name__ == "__main__":
    main()
