#!/usr/bin/env python3
"""A numpy kernel that stays up: `fplab reveal ... --serve -- python3
serve_numpy.py` (the protocol of docs/kernels.md, "A kernel that stays
up").

Each request is one line on stdin, tab-separated:
    call  INDEX  OP  DTYPE  IN  IN2-or-"-"  OUT
OP sum: np.sum(x, axis=-1); dot: np.sum(a * b, axis=-1); gemm: np.matmul
(of each 2-D slice when the arrays are 3-D).  The answer is one line on
stdout, "ok" or "error MESSAGE"; stdout carries nothing else (numpy's
own warnings go to stderr).  "quit" or the end of stdin ends it.
"""
import sys

import numpy as np


def compute(op, x, y):
    if op == "sum":
        return np.sum(x, axis=-1)
    if op == "dot":
        return np.sum(x * y, axis=-1)
    if op == "gemm":
        if x.ndim == 2:
            return np.matmul(x, y)
        return np.stack([np.matmul(x[i], y[i]) for i in range(x.shape[0])])
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
            if dtype not in ("float32", "float16"):
                raise ValueError("numpy has no " + dtype)
            x = np.load(inp)
            y = np.load(in2) if in2 != "-" else None
            np.save(out, compute(op, x, y))
            reply = "ok"
        except Exception as e:  # the protocol reports it; the server stays
            reply = "error " + str(e).replace("\n", " ")
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
