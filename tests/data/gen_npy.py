#!/usr/bin/env python3
"""Write the .npy fixtures read by test_npy (tests/lab.cmake).

Usage: gen_npy.py OUTDIR

Valid files hold, at C-order flat index i, the value (i - 5) * 0.375, which
every dtype represents exactly; test_npy knows the same rule.  The corrupt
files are made by cutting, padding or rewriting valid ones.
"""
import os
import struct
import sys

import numpy as np


def c_values(shape, dtype):
    n = int(np.prod(shape)) if len(shape) else 1
    return ((np.arange(n, dtype=np.float64) - 5) * 0.375).astype(dtype).reshape(shape)


def save(path, arr, version=None):
    with open(path, "wb") as fp:
        np.lib.format.write_array(fp, arr, version=version, allow_pickle=False)


def header_file(path, header, data=b"", version=(1, 0)):
    """A .npy file with a hand-written header dict (padded like numpy's)."""
    h = header.encode("latin1")
    pre = 10 if version == (1, 0) else 12
    pad = (64 - (pre + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    with open(path, "wb") as fp:
        fp.write(b"\x93NUMPY" + bytes(version))
        fp.write(struct.pack("<H" if version == (1, 0) else "<I", len(h)))
        fp.write(h + data)


def main(out):
    os.makedirs(out, exist_ok=True)
    j = lambda name: os.path.join(out, name)
    valid = [
        ("c_f2_1d.npy", (7,), "<f2", False, None),
        ("c_f4_2d.npy", (3, 4), "<f4", False, None),
        ("c_f8_3d.npy", (2, 3, 4), "<f8", False, None),
        ("f_f4_2d.npy", (3, 5), "<f4", True, None),
        ("f_f8_3d.npy", (2, 3, 4), "<f8", True, None),
        ("f_f2_2d.npy", (4, 3), "<f2", True, None),
        ("be_f2_2d.npy", (2, 5), ">f2", False, None),
        ("be_f4_1d.npy", (6,), ">f4", False, None),
        ("be_f8_f_2d.npy", (4, 3), ">f8", True, None),
        ("scalar_f4.npy", (), "<f4", False, None),
        ("empty_f4.npy", (0,), "<f4", False, None),
        ("empty_f8_2d.npy", (3, 0), "<f8", False, None),
        ("v2_f4.npy", (2, 2), "<f4", False, (2, 0)),
        ("v3_f2.npy", (3,), "<f2", False, (3, 0)),
    ]
    for name, shape, dt, fortran, version in valid:
        a = c_values(shape, dt)
        if fortran:
            a = np.asfortranarray(a)
        save(j(name), a, version)
    save(j("special_f2.npy"),
         np.array([0.0, -0.0, 2.0**-24, 65504.0, np.inf, -np.inf, np.nan],
                  dtype="<f2"))

    good = open(j("c_f4_2d.npy"), "rb").read()
    with open(j("bad_magic.npy"), "wb") as fp:
        fp.write(b"\x93NUMPZ" + good[6:])
    with open(j("truncated_header.npy"), "wb") as fp:
        fp.write(good[:40])
    with open(j("truncated_len.npy"), "wb") as fp:
        fp.write(good[:9])
    with open(j("truncated_data.npy"), "wb") as fp:
        fp.write(good[:-4])
    with open(j("trailing.npy"), "wb") as fp:
        fp.write(good + b"\0\0\0\0")
    with open(j("bad_version.npy"), "wb") as fp:
        fp.write(good[:6] + bytes([4, 0]) + good[8:])
    save(j("bad_dtype_i4.npy"), np.arange(6, dtype="<i4"))
    save(j("bad_dtype_c8.npy"), np.zeros(3, dtype="<c8"))
    save(j("bad_dtype_struct.npy"), np.zeros(2, dtype=[("x", "<f4"), ("y", "<f4")]))
    header_file(j("lying_shape.npy"),
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }",
                np.zeros(4, dtype="<f4").tobytes())
    header_file(j("overflow_shape.npy"),
                "{'descr': '<f8', 'fortran_order': False, "
                "'shape': (1099511627776, 1099511627776, 1099511627776), }")
    header_file(j("bad_key.npy"),
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1, }",
                np.zeros(1, dtype="<f4").tobytes())
    header_file(j("missing_key.npy"),
                "{'descr': '<f4', 'shape': (1,), }",
                np.zeros(1, dtype="<f4").tobytes())
    with open(j("oversized_header.npy"), "wb") as fp:
        fp.write(b"\x93NUMPY\x02\x00" + struct.pack("<I", 0x7FFFFFF0) + b"{'descr'")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gen_npy.py OUTDIR")
    main(sys.argv[1])
