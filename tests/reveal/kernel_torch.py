#!/usr/bin/env python3
"""A PyTorch (CPU) kernel for `fplab reveal` (the kernel contract of
docs/cli.md).

    kernel_torch.py sum    DTYPE IN OUT        torch.sum(x, dim=-1)
    kernel_torch.py matmul DTYPE IN IN2 OUT    torch.matmul of each 2-D slice

DTYPE is float32 or bfloat16; bfloat16 arrives and leaves as uint16 bit
patterns (numpy has no bfloat16).  matmul takes (B, M, K) and (B, K, N)
and calls torch.matmul on each 2-D pair, so the kernel under test is the
2-D matmul however reveal batches it.
"""
import sys

import numpy as np
import torch


def load(path, dtype):
    a = np.load(path)
    if dtype == "bfloat16":
        if a.dtype != np.uint16:
            sys.exit(f"kernel_torch: {path} holds {a.dtype}, not uint16")
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    if a.dtype != np.dtype(dtype):
        sys.exit(f"kernel_torch: {path} holds {a.dtype}, not {dtype}")
    return torch.from_numpy(a)


def save(path, t):
    if t.dtype == torch.bfloat16:
        np.save(path, t.view(torch.int16).numpy().view(np.uint16))
    else:
        np.save(path, t.numpy())


def main():
    op, dtype = sys.argv[1], sys.argv[2]
    x = load(sys.argv[3], dtype)
    if op == "sum":
        save(sys.argv[4], torch.sum(x, dim=-1))
    elif op == "matmul":
        y = load(sys.argv[4], dtype)
        if x.dim() == 2:
            save(sys.argv[5], torch.matmul(x, y))
        else:
            save(sys.argv[5], torch.stack([torch.matmul(x[i], y[i])
                                           for i in range(x.shape[0])]))
    else:
        sys.exit(f"kernel_torch: unknown op {op}")


if __name__ == "__main__":
    main()
