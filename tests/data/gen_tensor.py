#!/usr/bin/env python3
"""Write the committed tensor-file fixtures of the bad-input table
(tests/hardening/bad_input.tsv, @T@) into tests/data/tensor/.

Plain Python (struct, zipfile, json): no numpy needed.  Re-running
rewrites the same bytes.

  a23.npy            float32 (2, 3): 0.5, 1, ..., 3
  a23_off.npy        the same with element [1, 2] one ulp up
  u16.npy            uint16 (2, 3) bit patterns
  ab.npz             members a = a23, b = float16 (3,)
  ab_crc.npz         ab.npz with a byte of a's data changed (CRC fails)
  ab_cut.npz         ab.npz cut short (no end record)
  ab.safetensors     a (F32 (2, 3)), b (F16 (3,)), __metadata__ fplab-model
  st_cut.safetensors ab.safetensors without its last 4 bytes
  st_json.safetensors  a header with a JSON syntax error
  st_overlap.safetensors  two tensors sharing bytes
  torch_zip.pt       torch.save's zip layout (ARCHIVE/data.pkl, data/0, version)
  torch_legacy.pt    torch.save's legacy layout (pickles, magic number first)
"""
import io
import json
import os
import pickle
import struct
import zipfile

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tensor")
os.makedirs(here, exist_ok=True)


def npy(descr, shape, data):
    sh = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1
                                                    else "") + ")"
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, sh)
    total = (10 + len(h) + 1 + 63) // 64 * 64
    h += " " * (total - 10 - len(h) - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data


def put(name, data):
    with open(os.path.join(here, name), "wb") as fp:
        fp.write(data)


a = struct.pack("<6f", 0.5, 1, 1.5, 2, 2.5, 3)
put("a23.npy", npy("<f4", (2, 3), a))
off = bytearray(a)
off[20:24] = struct.pack("<I", struct.unpack("<I", a[20:24])[0] + 1)
put("a23_off.npy", npy("<f4", (2, 3), bytes(off)))
put("u16.npy", npy("<u2", (2, 3), struct.pack("<6H", 1, 2, 3, 4, 5, 6)))
b = struct.pack("<3e", 1, -2, 0.5)
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    for name, data in (("a.npy", npy("<f4", (2, 3), a)),
                       ("b.npy", npy("<f2", (3,), b))):
        zi = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
        z.writestr(zi, data)
npz = buf.getvalue()
put("ab.npz", npz)
crc = bytearray(npz)
crc[30 + 5 + 128 + 2] ^= 0x10   # inside a's data
put("ab_crc.npz", bytes(crc))
put("ab_cut.npz", npz[:len(npz) - 40])
header = {"__metadata__": {"fplab-model": "test model line"},
          "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
          "b": {"dtype": "F16", "shape": [3], "data_offsets": [24, 30]}}
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
st = struct.pack("<Q", len(h)) + h + a + b
put("ab.safetensors", st)
put("st_cut.safetensors", st[:len(st) - 4])
bad = b'{"a": {"dtype": "F32", "shape": [2, 3] "data_offsets": [0, 24]}}'
put("st_json.safetensors", struct.pack("<Q", len(bad)) + bad + a)
ov = json.dumps({"a": {"dtype": "F32", "shape": [2, 3],
                       "data_offsets": [0, 24]},
                 "b": {"dtype": "F16", "shape": [3],
                       "data_offsets": [18, 24]}}).encode()
put("st_overlap.safetensors", struct.pack("<Q", len(ov)) + ov + a)
# PyTorch's files, in the layout torch.save writes (no torch needed): its
# zip archive (ARCHIVE/data.pkl, ARCHIVE/data/0, ARCHIVE/version), and
# the legacy format, a stream of pickles starting with torch's magic
# number (pickle protocol 2)
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    for name, data in (("torch_zip/data.pkl", pickle.dumps({"w": None},
                                                            protocol=2)),
                       ("torch_zip/data/0", a),
                       ("torch_zip/version", b"3\n")):
        z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
put("torch_zip.pt", buf.getvalue())
put("torch_legacy.pt", pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2) +
    pickle.dumps(1001, protocol=2) + a)
print("wrote", len(os.listdir(here)), "files to", here)
