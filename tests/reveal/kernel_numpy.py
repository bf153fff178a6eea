#!/usr/bin/env python3
"""A numpy kernel for `fplab reveal` (the kernel contract of docs/cli.md).

    kernel_numpy.py sum    DTYPE IN OUT        np.sum(x, axis=-1)
    kernel_numpy.py dot    DTYPE IN IN2 OUT    np.dot of each pair of rows
    kernel_numpy.py matmul DTYPE IN IN2 OUT    np.matmul of each 2-D slice

DTYPE is float32 or float16 (what reveal's --dtype says).  matmul takes
(B, M, K) and (B, K, N) and calls np.matmul on each (M, K) @ (K, N) pair,
so the kernel under test is the 2-D matmul however reveal batches it.
"""
import sys

import numpy as np


def main():
    op, dtype = sys.argv[1], sys.argv[2]
    x = np.load(sys.argv[3])
    if x.dtype != np.dtype(dtype):
        sys.exit(f"kernel_numpy: {sys.argv[3]} holds {x.dtype}, not {dtype}")
    if op == "sum":
        np.save(sys.argv[4], np.sum(x, axis=-1))
    elif op == "dot":
        y = np.load(sys.argv[4])
        a, b = x.reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1])
        d = np.array([np.dot(a[r], b[r]) for r in range(a.shape[0])],
                     dtype=x.dtype)
        np.save(sys.argv[5], d.reshape(x.shape[:-1]))
    elif op == "matmul":
        y = np.load(sys.argv[4])
        if x.ndim == 2:
            np.save(sys.argv[5], np.matmul(x, y))
        else:
            np.save(sys.argv[5], np.stack([np.matmul(x[i], y[i])
                                           for i in range(x.shape[0])]))
    else:
        sys.exit(f"kernel_numpy: unknown op {op}")


if __name__ == "__main__":
    main()
