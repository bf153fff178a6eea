#!/usr/bin/env python3
"""Write the hand-made seed inputs of every harness into fuzz/corpus/NAME/.

Seeds are named seed-*; inputs the fuzzers found and kept (after
`-merge=1` minimization) are named by their hash and live beside them.
Re-running this script rewrites only the seed-* files.

Input layouts (see each fuzz/fuzz_NAME.c):
  parse      format (1 byte, 0..127: preset index mod count; or 6 bytes
             from 128: exponent bits, precision, options, NaN style,
             bias offset), 2 context bytes (mode, options), then the text
  calc       newline-separated arguments of `fplab calc`
  testfloat  function byte, option byte, then TestFloat lines
  npy        a .npy image (the test fixtures plus a few made here)
  csv        option byte (label column, scale), then CSV text
  text       reader byte (0 text, 1-3 raw f16/f32/f64, 4 auto), then bytes
  diff       format (1 or 6 bytes), 2 context bytes, op byte, 3 x 8 bytes
  model      use byte (bit 0 file, bits 1-2 sum/dot/gemm), term count byte,
             then a model file or line of `fplab ref`
  npz        a zip of .npy members (stored, deflated, ZIP64 records, damaged)
  safetensors  8-byte header length, JSON header, data (valid and damaged)
"""
import gzip
import io
import json
import os
import shutil
import struct
import sys
import zipfile
import zlib

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
corpus = os.path.join(here, "corpus")

PRESETS = ["binary16", "bfloat16", "binary32", "binary64", "tf32",
           "fp8-e5m2", "fp8-e4m3", "float8_e4m3", "float8_e3m4",
           "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
           "float8_e5m3fnu", "float8_e8m0fnu", "float6_e2m3fn",
           "float6_e3m2fn", "float4_e2m1fn", "p3109:p1", "p3109:p2",
           "p3109:p3", "p3109:p4", "p3109:p5", "p3109:p6", "p3109:p7"]


def put(harness, name, data):
    d = os.path.join(corpus, harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    with open(os.path.join(d, "seed-" + name), "wb") as fp:
        fp.write(data)


def clear_seeds():
    if not os.path.isdir(corpus):
        return
    for h in os.listdir(corpus):
        for f in os.listdir(os.path.join(corpus, h)):
            if f.startswith("seed-"):
                os.remove(os.path.join(corpus, h, f))


def parse_seeds():
    texts = [
        "1.5", "-0x1.8p-14", "inf", "-Infinity", "nan", "snan", "-0",
        "1e-8", "65504", "65520", "0x1.ffcp15", "0.1", "5e-324",
        "2.4703282292062327e-324", "1.00048828125", "3.4028235677973366e38",
        "0x0.0000000000001p-1022", "1e400", "-1e-400", ".5", "5.", "0x.8p1",
        "1" + "0" * 30 + "e-30", "0." + "0" * 20 + "1",
        # a decimal midpoint of binary64 carried far past 768 digits
        "1.00000000000000011102230246251565404236316680908203125" + "0" * 800
        + "1",
        "ieee:4:3", "ieee:11:52", "ieee:2:1", "fp8-e4m3", "rne", "near_even",
        "x86", "0xFFFFFFFFFFFFFFFF", "18446744073709551616", "1e", "0x",
        "--1", "1.5 ", "0x1p", "nan(123)",
        "float8_e8m0fnu", "E8M0", "torch.bfloat16", "p3109:p9", "P3109:P3",
        "float4_e2m1fn", "np.float16", "binary8p1", "0x1p-127", "-nan",
    ]
    k = 0
    for i, t in enumerate(texts):
        for fmt in (0, 3, 6, 1) if i % 3 == 0 else (i % 7,):
            put("parse", "%02d" % k, bytes([fmt, i % 6, 0]) + t.encode())
            k += 1
    # made-up formats (format bytes: 128+, ebits, prec, options, style,
    # bias): FN e3 p3 saturating, in RUP with FTZ; unsigned FN without zero
    # (E8M0-like); FNUZ with a bias off the IEEE one
    put("parse", "custom-fn", bytes([200, 1, 1, 9, 1, 0, 3, 3]) + b"7.5")
    put("parse", "custom-nozero", bytes([200, 5, 0, 48 | 64, 1, 0, 0, 0])
        + b"0x1p-3")
    put("parse", "custom-fnuz", bytes([200, 3, 3, 0, 3, 7, 0, 0]) + b"-0")


def calc_seeds():
    lines = [
        "fp16\nadd\n1\n0x1p-11\n--rm\nrup",
        "fp8-e4m3\nround\n500\n--saturate",
        "fp16\nsqrt\nbits:0xbc00",
        "binary32\nfma\n1\n2\n3\n--rm=rtz",
        "bf16\nconvert\n1.00390625\n--from\nbinary32",
        "ieee:5:2\ndiv\n1\n0\n--ftz\n--daz\n--tininess\nbefore",
        "fp16\nto_i32\n65504\n--exact\n--nan\narm",
        "fp64\nfrom_i64\n-9223372036854775808",
        "fp16\nfrom_u32\n0xffffffff",
        "fp16\nadd\nbits:0b0011110000000000\nbits:15360",
        "fp16\ncompare_signaling\nnan\n1",
        "fp16\nclass\n-0x1p-24",
        "fp16\nadd\n1\n1\n--rm\nsr\n--seed\n7\n--index\n3",
        "fp16\nnextup\n--\n-1",
        "tf32\nrint-exact\n2.5\n--rm\nrna",
        "fp16\nadd\n1", "nosuch\nadd\n1\n2", "fp16\nnosuch\n1",
        "fp16\nadd\nbits:0x10000\n1", "--help",
        "e8m0\nsub\n1\n2", "fp4-e2m1\nround\nnan",
        "float8_e4m3fnuz\nmul\n-0x1p-10\n0.5", "p3109:p3\nsub\ninf\ninf",
        "float8_e5m3fnu\nnextdown\n0", "P3109:P9\nadd\n1\n1",
        "torch.float8_e4m3fn\nround\n480",
    ]
    for i, l in enumerate(lines):
        put("calc", "%02d" % i, l)


def testfloat_seeds():
    flt = ["f16", "bf16", "f32", "f64"]
    ops = ["add", "sub", "mul", "div", "rem", "sqrt", "mulAdd", "roundToInt",
           "eq", "le", "lt", "eq_signaling", "le_quiet", "lt_quiet"]
    idx = {}
    n = 0
    for a in flt:
        for o in ops:
            idx[a + "_" + o] = n
            n += 1
    for a in flt:
        for b in flt:
            if a != b:
                idx[a + "_to_" + b] = n
                n += 1
    for a in flt:
        for b in ["i32", "ui32", "i64", "ui64"]:
            idx[a + "_to_" + b] = n
            idx[a + "_to_" + b + "_r_minMag"] = n + 1
            n += 2
    for a in ["i32", "ui32", "i64", "ui64"]:
        for b in flt:
            idx[a + "_to_" + b] = n
            n += 1
    cases = [
        ("f16_add", 0, "3C00 3C00 4000 00\n3C00 0001 3C00 01\n"),
        ("f16_add", 0, "7C00 FC00\n# comment\n\n3C00 3C00\n"),
        ("f16_mulAdd", 1, "0000 7C00 7E00 7E00 10\n"),
        ("f32_div", 2, "3F800000 00000000 7F800000 08\n"),
        ("f64_sqrt", 0x10, "BFF0000000000000 FFF8000000000000 10\n"),
        ("f16_to_i32", 0x10, "7BFF 0000FFE0 00\nFC00 80000000 10\n"),
        ("f32_to_f16", 3, "47800000 7C00 05\n"),
        ("ui64_to_bf16", 4, "FFFFFFFFFFFFFFFF 5F80 01\n"),
        ("f16_eq", 0x20, "7E00 7E00 0 00\n"),
        ("f16_add", 0, "3C00 zz\n"),
        ("f16_add", 0, "3C00 3C00 4000 00 extra\n"),
        ("f16_add", 0, "3C00 3C00 4000 FF\n"),
        ("f16_add", 0, "123456 3C00\n"),
        ("bf16_roundToInt", 0x50, "3FC0 4000 01\r\n"),
    ]
    for i, (fn, opt, text) in enumerate(cases):
        put("testfloat", "%02d" % i, bytes([idx[fn], opt]) + text.encode())


def npy_header(descr, shape, fortran=False, version=(1, 0)):
    sh = "(" + "".join("%d, " % s for s in shape).rstrip(" ")
    sh = sh.rstrip(",") + ("," if len(shape) == 1 else "") + ")"
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", sh)
    lenb = 2 if version[0] == 1 else 4
    total = 6 + 2 + lenb + len(h) + 1
    h += " " * ((64 - total % 64) % 64) + "\n"
    fmt = "<H" if lenb == 2 else "<I"
    return (b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(h)) +
            h.encode())


def npy_seeds():
    src = os.path.join(root, "tests", "data", "npy")
    if os.path.isdir(src):
        for f in sorted(os.listdir(src)):
            if f.endswith(".npy"):
                with open(os.path.join(src, f), "rb") as fp:
                    put("npy", f[:-4], fp.read())
    put("npy", "made-f2", npy_header("<f2", [3]) +
        struct.pack("<3e", 1.0, -2.0, 65504.0))
    put("npy", "made-be-f8", npy_header(">f8", [2, 1], True) +
        struct.pack(">2d", 1e300, -0.0))
    put("npy", "made-v3", npy_header("<f4", [0], version=(3, 0)))


def npz_bytes(members, compress=False, force64=False):
    buf = io.BytesIO()
    mode = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", compression=mode, allowZip64=True) as z:
        for name, data in members:
            with z.open(name, "w", force_zip64=force64) as fp:
                fp.write(data)
    return buf.getvalue()


def zip64_by_hand(name, data):
    """One stored member with ZIP64 extra fields in the local header and
    the central directory, a ZIP64 end record and its locator."""
    crc = zlib.crc32(data)
    n = len(name)
    local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 0, 0, 0x21, crc,
                        0xffffffff, 0xffffffff, n, 20) + name + \
        struct.pack("<HHQQ", 1, 16, len(data), len(data)) + data
    cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x032d, 45, 0, 0, 0,
                     0x21, crc, 0xffffffff, 0xffffffff, n, 28, 0, 0, 0, 0,
                     0xffffffff) + name + \
        struct.pack("<HHQQQ", 1, 24, len(data), len(data), 0)
    cd_off = len(local)
    e64 = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 0x032d, 45, 0, 0, 1, 1,
                      len(cd), cd_off)
    loc = struct.pack("<IIQI", 0x07064b50, 0, cd_off + len(cd), 1)
    eocd = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xffff, 0xffff,
                       0xffffffff, 0xffffffff, 0)
    return local + cd + e64 + loc + eocd


def npz_seeds():
    a = npy_header("<f4", [2, 3]) + struct.pack("<6f", 1, 2, 3, 4, 5, 6)
    b = npy_header(">f2", [3, 2], True) + struct.pack(">6e", 1, -2, 0.5, 4, 8,
                                                      65504)
    c = npy_header("|u1", [0])
    d = npy_header("<i8", []) + struct.pack("<q", -7)
    two = [("a.npy", a), ("b.npy", b), ("c.npy", c), ("d.npy", d)]
    put("npz", "stored", npz_bytes(two))
    put("npz", "deflated", npz_bytes(two, compress=True))
    put("npz", "force64", npz_bytes(two[:2], force64=True))
    put("npz", "empty", npz_bytes([]))
    put("npz", "plain-name", npz_bytes([("weights", a)]))
    put("npz", "zip64-records", zip64_by_hand(b"x.npy", a))
    good = npz_bytes(two)
    bad = bytearray(good)
    bad[100] ^= 0x40
    put("npz", "crc", bytes(bad))
    put("npz", "cut", good[:len(good) - 30])
    put("npz", "cut-deflate", npz_bytes(two, compress=True)[:90])


def st_bytes(tensors, meta=None):
    header, blobs, off = {}, [], 0
    if meta is not None:
        header["__metadata__"] = meta
    for name, dt, shape, data in tensors:
        header[name] = {"dtype": dt, "shape": shape,
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def safetensors_seeds():
    t = [("w", "BF16", [2, 2], struct.pack("<4H", 0x3f80, 0xc000, 0x7f80, 1)),
         ("s", "F8_E4M3", [3], bytes([0x38, 0x7e, 0x7f])),
         ("x", "F32", [], struct.pack("<f", 1.5)),
         ("e", "I64", [0, 4], b""),
         ("b", "BOOL", [2], b"\x01\x00")]
    put("safetensors", "all", st_bytes(t, {"fplab-model": "gemm acc=binary32"}))
    put("safetensors", "one", st_bytes(t[:1]))
    put("safetensors", "unknown-dtype",
        st_bytes([("q", "F8_E8M0", [2], b"\x7f\x80")] + t[2:3]))
    good = st_bytes(t[:3])
    put("safetensors", "cut", good[:len(good) - 2])
    h = b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},' \
        b'"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'
    put("safetensors", "overlap", struct.pack("<Q", len(h)) + h + bytes(8))
    h = b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},,}'
    put("safetensors", "bad-json", struct.pack("<Q", len(h)) + h + bytes(8))
    h = b'{"a":{"dtype":"U8","shape":[4611686018427387904,4],' \
        b'"data_offsets":[0,0]}}'
    put("safetensors", "huge-shape", struct.pack("<Q", len(h)) + h)


def csv_seeds():
    put("csv", "00", b"\x00" + b"0,1,16,3\n4,5,6,1\n")
    put("csv", "01", b"\x01" + b"2,0.5,1e3\n0,7,8\n")
    put("csv", "02", b"\x02" + b"# header\n\n1,2,0\r\n3,4,1\r\n")
    put("csv", "03", b"\x04" + b"1,2,3\n1,2\n")
    put("csv", "04", b"\x00" + b"1,nan,0\n")
    put("csv", "05", b"\x06" + b"1,2,1024\n")
    put("csv", "06", b"\x00" + b"1,,0\n")
    put("csv", "07", b"\x00" + b"\xff\xfe,1\n")
    data = os.path.join(root, "data", "digits.csv.gz")
    if os.path.exists(data):
        with gzip.open(data, "rb") as fp:
            head = b"".join(fp.readline() for _ in range(5))
        put("csv", "digits-head", b"\x02" + head)


def text_seeds():
    put("text", "00", b"\x00" + b"1.5, -2e-8; 3\n# c\n\n0x1p-24\tinf nan\n")
    put("text", "01", b"\x00" + b"1,,2\n")
    put("text", "02", b"\x00" + b"1,\n")
    put("text", "03", b"\x00" + b"1\x002\n")
    put("text", "04", b"\x01" + struct.pack("<4e", 1, 2, 3, 65504))
    put("text", "05", b"\x02" + struct.pack("<3f", 1, -0.0, 1e-45))
    put("text", "06", b"\x03" + struct.pack("<2d", 1e308, 5e-324))
    put("text", "07", b"\x02" + b"\x00\x00\x80")
    put("text", "08", b"\x04" + npy_header("<f4", [2]) +
        struct.pack("<2f", 1, 2))
    put("text", "09", b"\x04" + b"1 2 3\n")


def diff_seeds():
    def one(fmt, ctx, op, a, b=0, c=0):
        return bytes(fmt) + bytes(ctx) + bytes([op]) + struct.pack(
            "<3Q", a, b, c)
    k = 0
    # binary16 add/mul/div/sqrt/fma/rem/rint corners in each mode
    h = [0]
    for op, a, b, c in [(0, 0x3C00, 0x1000, 0), (0, 0x7BFF, 0x5000, 0),
                        (2, 0x0001, 0x3800, 0), (3, 0x3C00, 0x0000, 0),
                        (4, 0x0002, 0, 0), (5, 0x7C00, 0x0000, 0x7E00),
                        (5, 0x3C01, 0x3C01, 0xBC00), (6, 0x4500, 0x4000, 0),
                        (7, 0x3E00, 0, 0), (8, 0x4100, 0, 0),
                        (9, 0x3555, 0, 0), (10, 0x1234, 0, 0),
                        (11, 0x7BFF, 0, 0)]:
        for rm in range(6):
            put("diff", "%03d" % k, one(h, [rm, 0], op, a, b, c))
            k += 1
    # every preset, FN e4m3 with saturation, tininess before, FTZ/DAZ
    for p in range(len(PRESETS)):
        put("diff", "%03d" % k, one([p], [8, 0x10], 0, 0x11, 0x22, 0))
        k += 1
    put("diff", "%03d" % k, one([6], [0, 0x1f], 3, 0x29, 0, 0))
    k += 1
    # made-up formats (ebits, prec, options, style, bias): ieee:2:1, e11
    # p53 FN, e5 p26 FN without subnormals, FNUZ e4 p4 bias 9, unsigned FN
    # e8 p1 without zero, P3109 e1 p7, finite e2 p2
    for fmt in ([128, 0, 0, 0, 0, 0], [129, 9, 51, 1, 1, 0],
                [130, 3, 24, 7, 1, 0], [131, 3, 3, 0, 3, 19],
                [132, 7, 0, 48 | 64, 1, 0], [133, 0, 6, 0, 4, 0],
                [134, 1, 1, 0, 2, 0]):
        for op in (0, 2, 5, 9, 10, 11):
            put("diff", "%03d" % k,
                one(fmt, [op % 6, 0], op, 0x5, 0x3, 0x1))
            k += 1


def model_seeds():
    canon = ("in=binary32 acc=binary32 acc-rm=rne products=rounded "
             "order=sequential tc=none out=binary32 out-rm=rne epilogue=last "
             "ftz=0 daz=0 nan=x86 saturate=0 tininess=after seed=0")
    put("model", "canon-line", bytes([0, 8]) + canon.encode())
    put("model", "canon-file", bytes([1, 8]) + canon.encode() + b"\n")
    put("model", "file", bytes([3, 5]) +
        b"# numpy-like\nin = binary16\nacc = binary32   # wide\n\n"
        b"order = tree: ((0 + 1) + (2 + 3)) + 4\nepilogue = init\n")
    put("model", "tc", bytes([2, 33]) + b"in=fp16 tc=h100-fp16(neab:3,align:rne) "
        b"order=splitk:3 acc-rm=sr seed=7")
    put("model", "tc-gemm", bytes([4, 20]) + b"in=bf16 tc=block:8,neab:1,align:floor,"
        b"norm:products,rm:rne epilogue=fma")
    put("model", "lanes", bytes([0, 17]) + b"order=lanes:8:halving products=fused "
        b"acc=bf16 in=bf16 ftz=1 daz=1 nan=cuda")
    put("model", "numpy", bytes([0, 39]) + b"order=numpy out=fp16 out-rm=rtz")
    put("model", "exact", bytes([2, 12]) + b"order=exact in=fp64 out=ieee:6:9")
    put("model", "bad-key", bytes([1, 3]) + b"acc = fp32\nacc_rm = rne\n")
    put("model", "dup", bytes([1, 3]) + b"acc = fp32\nacc = fp16\n")
    put("model", "tree-bad", bytes([0, 3]) + b"order=tree:((0+1)+1")
    put("model", "tree-deep", bytes([0, 30]) + b"order=tree:" +
        b"(" * 29 + b"0" + b"".join(b"+%d)" % i for i in range(1, 30)))
    put("model", "nul", bytes([1, 3]) + b"acc = fp32\n\0\n")


def main():
    clear_seeds()
    parse_seeds()
    calc_seeds()
    testfloat_seeds()
    npy_seeds()
    csv_seeds()
    text_seeds()
    diff_seeds()
    model_seeds()
    npz_seeds()
    safetensors_seeds()
    for h in sorted(os.listdir(corpus)):
        print("%-10s %d files" % (h, len(os.listdir(os.path.join(corpus, h)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
