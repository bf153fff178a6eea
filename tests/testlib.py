"""testlib.py -- what fplab's Python tests share: counted checks with an
asserted total (a table that stops running fails), the seed (printed;
FPLAB_TEST_SEED replays it), and a safetensors writer and parser made of
json and struct (the safetensors package is not used: the tests do not
lean on another implementation of the format).

Import it from a test beside it (tests/) or below it with
sys.path.insert(0, <the tests directory>).
"""
import json
import os
import struct
import sys
import time

cases = 0
failures = 0


def check(cond, msg):
    """One counted case; a false one prints msg and counts as a failure."""
    global cases, failures
    cases += 1
    if not cond:
        failures += 1
        print("FAIL:", msg, file=sys.stderr)
    return cond


def finish(who, expected):
    """Exit: 1 when a check failed or the count is not `expected`."""
    print("%s: %d checks, %d failures" % (who, cases, failures))
    if cases != expected:
        print("FAIL: ran %d checks, expected %d" % (cases, expected),
              file=sys.stderr)
        sys.exit(1)
    sys.exit(1 if failures else 0)


def seed(who, default=None):
    """FPLAB_TEST_SEED when set, else default, else the clock; printed."""
    env = os.environ.get("FPLAB_TEST_SEED")
    if env:
        s = int(env, 0)
    elif default is not None:
        s = default
    else:
        s = time.time_ns() % (1 << 32)
    print("%s: seed %d (replay with FPLAB_TEST_SEED=%d)" % (who, s, s))
    return s


def st_write(path, tensors, metadata=None, pad=True):
    """A safetensors file.  tensors: name -> (dtype, shape, bytes), laid
    out in that order; pad: the header padded with spaces to a multiple of
    8 bytes, as the safetensors library writes it (pad=False: as a writer
    that does not)."""
    header, blobs, off = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, (dt, shape, data) in tensors.items():
        header[name] = {"dtype": dt, "shape": list(shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    with open(path, "wb") as fp:
        fp.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def st_parse(path):
    """A safetensors file's parts: the header length, the header without
    __metadata__ (name -> entry), the metadata (or None), the data area."""
    with open(path, "rb") as fp:
        raw = fp.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", None)
    return n, header, meta, raw[8 + n:]
