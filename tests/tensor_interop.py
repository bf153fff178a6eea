#!/usr/bin/env python3
"""Tensor files between numpy (and torch) and fplab_tensor, bit for bit.

usage: tensor_interop.py TENSOR_TOOL WORKDIR

1. numpy writes (np.save: every dtype, C and Fortran order, both byte
   orders, 0-d and empty; np.savez and np.savez_compressed), fplab reads
   and writes the arrays again (.npy, .npz stored/deflated/ZIP64,
   .safetensors), and numpy (or the hand-made safetensors reader below)
   reads fplab's files: the bytes of every array must be the same, in C
   order and little-endian.  fplab's .npy files must be byte-identical to
   what np.save writes for the same array.
2. safetensors: a hand-made writer (tests/testlib.py, json + struct: the
   `safetensors` package is not used) writes every safetensors dtype with __metadata__;
   fplab reads it and writes it again; the reader checks the layout
   (header length, 8-byte padding, offsets tiling the data area) and the
   bytes.  torch.frombuffer reads fplab's BF16 data as bfloat16 values.
3. Damaged numpy files, and PyTorch's torch.save files (its zip archive and
   its legacy pickle): fplab must exit 2 naming the file.

Every case is counted; the count is asserted at the end (tests/testlib.py).
The random data come from a fixed seed, printed; FPLAB_TEST_SEED replays
another.
"""
import io
import os
import subprocess
import sys
import zipfile

import numpy as np

from testlib import check, finish, seed, st_parse, st_write

TOOL, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(seed("tensor_interop", 20240611))


def p(name):
    return os.path.join(WORK, name)


def tool(*args, expect=0):
    r = subprocess.run([TOOL] + list(args), capture_output=True, text=True)
    if r.returncode != expect:
        print("tensor_tool %s: exit %d\n%s" % (" ".join(args), r.returncode,
                                               r.stderr), file=sys.stderr)
    return r


def c_le_bytes(a):
    """The bytes fplab holds for a: C order, little-endian."""
    le = a.dtype.newbyteorder("<") if a.dtype.itemsize > 1 else a.dtype
    return np.ascontiguousarray(a.astype(le)).tobytes()


def same(a, b):
    return a.shape == b.shape and c_le_bytes(a) == c_le_bytes(b)


def random_array(dt, shape):
    n = int(np.prod(shape)) if shape else 1
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8)
    a = np.frombuffer(raw.tobytes(), dtype=dt.newbyteorder("<")
                      if dt.itemsize > 1 else dt).reshape(shape).copy()
    if dt == np.bool_:
        a = (raw[:n] & 1).astype(np.bool_).reshape(shape)
    return a


DTYPES = [np.dtype(t) for t in ("bool", "int8", "uint8", "int16", "uint16",
                                "int32", "uint32", "int64", "uint64",
                                "float16", "float32", "float64")]
SHAPES = [(3, 4, 5), (7,), (), (0,), (2, 0, 3), (1, 6)]

# ---- 1. np.save -> fplab -> numpy --------------------------------------
npy_cases = 0
for dt in DTYPES:
    for si, shape in enumerate(SHAPES):
        base = random_array(dt, shape)
        variants = [("c", base)]
        if len(shape) >= 2:
            variants.append(("f", np.asfortranarray(base)))
        if dt.itemsize > 1:
            variants.append(("be", base.astype(dt.newbyteorder(">"))))
            if len(shape) >= 2:
                variants.append(("fbe", np.asfortranarray(
                    base.astype(dt.newbyteorder(">")))))
        for tag, arr in variants:
            src = p("np_%s_%d_%s.npy" % (dt.name, si, tag))
            np.save(src, arr)
            for ext, flags in (("npy", []), ("npz", []), ("npz", ["--deflate"]),
                               ("npz", ["--zip64"]), ("safetensors", [])):
                out = p("fp_%s_%d_%s_%s%s.%s" % (dt.name, si, tag, ext,
                                                  "".join(flags), ext))
                r = tool("pack", out, *flags, "x=" + src)
                if r.returncode:
                    check(False, "pack %s -> %s" % (src, out))
                    continue
                if ext == "npy":
                    back = np.load(out)
                    # byte-identical to np.save of the C-order LE array
                    buf = io.BytesIO()
                    np.save(buf, arr.astype(dt.newbyteorder("<") if
                                            dt.itemsize > 1 else dt, order="C"))
                    with open(out, "rb") as fp:
                        check(fp.read() == buf.getvalue(),
                              "%s: bytes differ from np.save's" % out)
                elif ext == "npz":
                    with zipfile.ZipFile(out) as z:
                        check(z.testzip() is None, "%s: zip CRC" % out)
                    with np.load(out) as f:
                        back = f["x"]
                else:
                    back = None   # checked in part 2's reader below
                if back is not None:
                    check(same(arr, back) and back.dtype.kind == dt.kind,
                          "%s: numpy reads different data (%s %s vs %s %s)" %
                          (out, back.dtype, back.shape, arr.dtype, arr.shape))
                npy_cases += 1
# variants per dtype: 6 shapes C order, 3 of them >= 2-d in Fortran order,
# and for multi-byte dtypes both again big-endian: 9 or 18; 3 one-byte and
# 9 multi-byte dtypes; 5 outputs each
check(npy_cases == (3 * 9 + 9 * 18) * 5, "np.save cases %d" % npy_cases)
print("np.save round trips: %d" % npy_cases)

# np.savez / np.savez_compressed with several members
members = {"a": random_array(np.dtype("float32"), (4, 3)),
           "b": np.asfortranarray(random_array(np.dtype("float16"), (2, 5))),
           "c": random_array(np.dtype(">f8"), (3,)),
           "d": random_array(np.dtype("uint16"), ()),
           "e": random_array(np.dtype("int8"), (0, 2))}
for kind, save in (("savez", np.savez), ("savez_compressed",
                                         np.savez_compressed)):
    src = p("np_%s.npz" % kind)
    save(src, **members)
    for ext, flags in (("npz", []), ("npz", ["--deflate"]),
                       ("safetensors", []), ("npz", ["--zip64", "--deflate"])):
        out = p("fp_%s%s.%s" % (kind, "".join(flags), ext))
        r = tool("pack", out, *flags,
                 *["%s=%s:%s" % (k, src, k) for k in members])
        check(r.returncode == 0, "pack %s" % src)
        if ext == "npz" and r.returncode == 0:
            with np.load(out) as f:
                check(sorted(f.files) == sorted(members), "%s keys" % out)
                for k, v in members.items():
                    check(same(v, f[k]), "%s:%s differs" % (out, k))
    # fplab reads numpy's member names with and without .npy
    r = tool("info", src + ":a.npy", src + ":b")
    check(r.returncode == 0 and "shape=(4, 3)" in r.stdout and
          "shape=(2, 5)" in r.stdout, "info on %s: %s" % (src, r.stderr))

# ---- 2. safetensors, hand-made reader and writer ------------------------
ST_DTYPES = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "I32": 4,
             "U32": 4, "I64": 8, "U64": 8, "F16": 2, "BF16": 2, "F32": 4,
             "F64": 8, "F8_E4M3": 1, "F8_E5M2": 1}


def st_read(path):
    """name -> (dtype, shape, bytes), metadata; checks the layout."""
    n, header, meta, data = st_parse(path)
    check((8 + n) % 8 == 0, "%s: data area not 8-aligned" % path)
    with open(path, "rb") as fp:
        check(fp.read(9)[8:9] == b"{", "%s: header does not start with '{'" % path)
    spans = sorted((v["data_offsets"][0], v["data_offsets"][1], k)
                   for k, v in header.items())
    at = 0
    for b, e, k in spans:
        check(b == at, "%s: %s starts at %d, not %d" % (path, k, b, at))
        at = e
    check(at == len(data), "%s: data area %d, tensors cover %d" %
          (path, len(data), at))
    out = {}
    for k, v in header.items():
        b, e = v["data_offsets"]
        size = ST_DTYPES[v["dtype"]]
        check(b % size == 0, "%s: %s misaligned at %d" % (path, k, b))
        check((e - b) == size * int(np.prod(v["shape"])),
              "%s: %s span" % (path, k))
        out[k] = (v["dtype"], tuple(v["shape"]), data[b:e])
    return out, meta


st_in = {}
for i, (dt, size) in enumerate(ST_DTYPES.items()):
    shape = [(2, 3), (5,), (), (0, 4), (1, 2, 2)][i % 5]
    n = int(np.prod(shape)) if shape else 1
    data = rng.integers(0, 256, size=n * size, dtype=np.uint8).tobytes()
    if dt == "BOOL":
        data = bytes(b & 1 for b in data)
    st_in["t_" + dt.lower()] = (dt, shape, data)
meta = {"fplab-model": "gemm acc=binary32 order=sequential", "format": "pt"}
st_write(p("py.safetensors"), st_in, meta)
r = tool("meta", p("py.safetensors"))
check(r.returncode == 0 and "model=gemm acc=binary32 order=sequential"
      in r.stdout and "meta format=pt" in r.stdout, "meta: " + r.stdout +
      r.stderr)
r = tool("pack", p("fp.safetensors"), "--meta",
         "fplab-model=" + meta["fplab-model"],
         *["%s=%s:%s" % (k, p("py.safetensors"), k) for k in st_in])
check(r.returncode == 0, "pack safetensors")
back, bmeta = st_read(p("fp.safetensors"))
check(bmeta == {"fplab-model": meta["fplab-model"]}, "metadata %r" % bmeta)
for k, v in st_in.items():
    check(back.get(k) == v, "safetensors %s differs: %r vs %r" %
          (k, back.get(k, (None, None, b""))[:2], v[:2]))
# every np.save fixture written to safetensors by fplab, read here
for dt in DTYPES:
    for si, shape in enumerate(SHAPES):
        src = p("np_%s_%d_c.npy" % (dt.name, si))
        out = p("fp_%s_%d_c_safetensors.safetensors" % (dt.name, si))
        got, _ = st_read(out)
        arr = np.load(src)
        stname = {"bool": "BOOL", "int8": "I8", "uint8": "U8", "int16": "I16",
                  "uint16": "U16", "int32": "I32", "uint32": "U32",
                  "int64": "I64", "uint64": "U64", "float16": "F16",
                  "float32": "F32", "float64": "F64"}[dt.name]
        check(got["x"] == (stname, arr.shape, c_le_bytes(arr)),
              "%s: safetensors bytes" % out)
# BF16 written by fplab, read by torch as bfloat16 values
try:
    import torch
    vals = torch.tensor([1.0, -2.5, 3.140625, 0.0, -0.0, float("inf"),
                         2.0 ** -133, 65280.0], dtype=torch.bfloat16)
    bits = vals.view(torch.int16).numpy().astype("<i2").view("<u2")
    np.save(p("bf16_bits.npy"), bits)
    st_write(p("bf16_in.safetensors"),
             {"w": ("BF16", bits.shape, bits.tobytes())})
    r = tool("pack", p("bf16_out.safetensors"), "w=" + p("bf16_in.safetensors"))
    got, _ = st_read(p("bf16_out.safetensors"))
    dt, shape, data = got["w"]
    tv = torch.frombuffer(bytearray(data), dtype=torch.bfloat16)
    check(dt == "BF16" and torch.equal(tv.view(torch.int16),
                                       vals.view(torch.int16)),
          "torch reads fplab's BF16: %s" % tv)
    # bfloat16 to .npy: uint16 bit patterns numpy reads as such
    r = tool("pack", p("bf16.npy"), "w=" + p("bf16_in.safetensors"))
    b = np.load(p("bf16.npy"))
    check(b.dtype == np.uint16 and (b == bits).all(), "bf16 -> npy uint16")
except ImportError:
    print("torch not installed: the bfloat16 check ran without it")
    check(True, "")
    check(True, "")

# ---- 3. damaged files: exit 2, the file named ----------------------------
good = p("np_float32_0_c.npy")
with open(good, "rb") as fp:
    gb = fp.read()
damaged = {"cut.npy": gb[:len(gb) - 3], "head.npy": gb[:40]}
with open(p("np_savez.npz"), "rb") as fp:
    zb = fp.read()
damaged["cut.npz"] = zb[:len(zb) // 2]
flip = bytearray(zb)
flip[200] ^= 0xFF   # inside member a's data
damaged["flip.npz"] = bytes(flip)
with open(p("py.safetensors"), "rb") as fp:
    sb = fp.read()
damaged["cut.safetensors"] = sb[:len(sb) - 1]
bad_json = bytearray(sb)
bad_json[9] = ord("?")
damaged["json.safetensors"] = bytes(bad_json)
for name, data in damaged.items():
    with open(p(name), "wb") as fp:
        fp.write(data)
    r = tool("info", p(name), expect=2)
    check(r.returncode == 2 and p(name) in r.stderr and
          "Traceback" not in r.stderr, "%s: exit %d, '%s'" %
          (name, r.returncode, r.stderr.strip()))
r = tool("info", p("flip.npz") + ":a", expect=2)
check("flip.npz:a: CRC mismatch" in r.stderr, "flip.npz: " + r.stderr)
# PyTorch's own files are no .npz (torch.save's zip archive) and no text
# (its legacy pickle): refused, saying so
try:
    import torch
    torch.save({"w": torch.ones(3), "b": torch.zeros(2)}, p("t_zip.pt"))
    torch.save(torch.ones(3), p("t_legacy.pt"),
               _use_new_zipfile_serialization=False)
    r = tool("info", p("t_zip.pt"), expect=2)
    check(r.returncode == 2 and p("t_zip.pt") + ": a PyTorch file" in
          r.stderr and "/data.pkl" in r.stderr, "t_zip.pt: " + r.stderr)
    r = tool("info", p("t_legacy.pt"), expect=2)
    check(r.returncode == 2 and p("t_legacy.pt") + ": a Python pickle" in
          r.stderr, "t_legacy.pt: " + r.stderr)
except ImportError:
    print("torch not installed: torch.save's files not tried")
    check(True, "")
    check(True, "")

finish("tensor_interop", 2146)
