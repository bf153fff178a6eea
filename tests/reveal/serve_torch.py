#!/usr/bin/env python3
"""A PyTorch (CPU) kernel that stays up: `fplab reveal ... --serve --
python3 serve_torch.py` (the protocol of docs/kernels.md, "A kernel that
stays up"): torch is imported once, not once per call.

Each request is one line on stdin, tab-separated:
    call  INDEX  OP  DTYPE  IN  IN2-or-"-"  OUT
OP sum: torch.sum(x, dim=-1); gemm: torch.matmul of each 2-D slice (so
the kernel under test is the 2-D matmul however reveal batches it).
bfloat16 arrives and leaves as uint16 bit patterns.  The answer is one
line on stdout, "ok" or "error MESSAGE"; "quit" ends it.
"""
import sys

import numpy as np
import torch


def load(path, dtype):
    a = np.load(path)
    if dtype == "bfloat16":
        if a.dtype != np.uint16:
            raise ValueError(f"{path} holds {a.dtype}, not uint16")
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    if a.dtype != np.dtype(dtype):
        raise ValueError(f"{path} holds {a.dtype}, not {dtype}")
    return torch.from_numpy(a)


def save(path, t):
    if t.dtype == torch.bfloat16:
        np.save(path, t.view(torch.int16).numpy().view(np.uint16))
    else:
        np.save(path, t.numpy())


def compute(op, x, y):
    if op == "sum":
        return torch.sum(x, dim=-1)
    if op == "gemm":
        if x.dim() == 2:
            return torch.matmul(x, y)
        return torch.stack([torch.matmul(x[i], y[i]) for i in range(x.shape[0])])
    raise ValueError("unknown op " + op)


def main():
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if f[0] == "quit":
            break
        try:
            if f[0] != "call" or len(f) != 7:
                raise ValueError("bad request: " + line.strip())
            op, dtype, inp, in2, out = f[2], f[3], f[4], f[5], f[6]
            x = load(inp, dtype)
            y = load(in2, dtype) if in2 != "-" else None
            save(out, compute(op, x, y))
            reply = "ok"
        except Exception as e:  # the protocol reports it; the server stays
            reply = "error " + str(e).replace("\n", " ")
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
