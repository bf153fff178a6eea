"""fplab: a bit-exact float-format simulator, from Python.

Every function here is one call into fplab's C library (the same code the
`fplab` command runs), on numpy arrays and PyTorch CPU tensors:

  Format, formats()                  the formats (ml_dtypes' names, ieee:E:M)
  round, encode, decode              rounding into any format, any mode
  add, sub, mul, div, fma, sqrt      one operation in any format, with flags
  Model, ref.sum, ref.dot, ref.gemm  kernel references in an arithmetic model
  compare, testing.assert_close      the verdict on a kernel's output
  reveal                             the arithmetic model of a Python kernel
  quantize, hist                     MX / NVFP4 / FP8 scaling, loss scales
  fplab.torch                        formats inside a PyTorch training loop

Arrays come back as the kind that went in: a numpy array of the input's
dtype, a torch tensor of the input's dtype (bfloat16 included), or a Python
float for a Python number.  numpy has no bfloat16 or float8: such arrays
travel as unsigned codes (uint16, uint8) with the format named.  Errors
are ValueError / TypeError with the library's message.  docs/python.md
walks through all of it.
"""
import enum as _enum
import json as _json

import numpy as _np

from . import _fplab as _c
from ._arrays import to_numpy as _to_numpy, back as _back
from ._arrays import dtype_name as _dtype_name
from ._arrays import rbits_array as _rbits_array

__version__ = _c.version
__all__ = ["Format", "formats", "Flags", "round", "encode", "decode", "add",
           "sub", "mul", "div", "fma", "sqrt", "Model", "ref", "compare",
           "Verdict", "testing", "reveal", "Revealed", "quantize",
           "Quantized", "schemes", "hist", "Hist", "sr_hw_presets"]

Format = _c.Format


def formats():
    """The names of the format presets, in the library's table order."""
    return _c.formats()


def schemes():
    """The scaling schemes fplab.quantize and fplab.hist take (each with
    options after ':', e.g. 'mxfp8-e4m3:rceil', 'nvfp4:sr')."""
    return _c.schemes()


def sr_hw_presets():
    """The hardware rules of stochastic rounding with given random bits
    (fplab.round's sr_hw=; docs/formats.md cites each): {name: {'format':
    the destination format, 'nbits': random bits per value, 'lanes':
    values per instruction, 'satfinite': saturation to the largest finite
    value is the instruction's only mode}}."""
    return _c.sr_hw_presets()


class Flags(_enum.IntFlag):
    """IEEE exception flags in Berkeley TestFloat's bits, and the ternary
    bits (the result lies above / below the exact value)."""
    INEXACT = 0x01
    UNDERFLOW = 0x02
    OVERFLOW = 0x04
    DIVBYZERO = 0x08
    INVALID = 0x10
    TERN_UP = 0x20
    TERN_DOWN = 0x40

    def __str__(self):
        """The IEEE flags' names as `fplab calc` prints them
        ("inexact,underflow"; "-" when none)."""
        names = [n for n, b in (("inexact", 1), ("underflow", 2),
                                ("overflow", 4), ("divbyzero", 8),
                                ("invalid", 16)) if self & b]
        return ",".join(names) or "-"


def _flags(f):
    return Flags(f & 0x1F)


# ---- rounding -------------------------------------------------------------

def _srb(rbits, nbits, variant, sr_hw, shape, where, what="x",
         size_only=False):
    """The supplied random bits of rm='srb' as the extension takes them:
    None when none of rbits, nbits, variant, sr_hw is given, else (rbits
    as C-contiguous uint64 of x's shape, nbits, variant, sr_hw); the
    extension checks the rest (rm, nbits, variant, sr_hw, the bits'
    width)."""
    if rbits is None:
        if nbits is None and variant is None and sr_hw is None:
            return None
        raise ValueError("%s: nbits=, variant= and sr_hw= go with rbits= (the "
                         "random bits of rm='srb')" % where)
    return (_rbits_array(rbits, shape, where, what, size_only), nbits, variant,
            sr_hw)


def round(x, fmt, rm="rne", *, seed=None, offset=0, rbits=None, nbits=None,
          variant=None, sr_hw=None, saturate=False, ftz=False, daz=False,
          nan=None, tininess=None, threads=0, out=None, in_fmt=None,
          return_flags=False):
    """x rounded into fmt, as an array of x's dtype holding fmt's values.

    rm: rne rtz rdn rup rna rto sr (stochastic: seed= picks the stream;
    element i draws the random bits of index offset + i, so the bits are
    the same whatever the thread count and however the array is split),
    or srb: stochastic rounding with supplied random bits -- rbits= an
    unsigned integer array of x's shape (element i rounds with rbits[i]),
    nbits= their width N (1..64), variant= stochastic (default),
    stochastic_odd, fast or fastest (IEEE P3109's four; docs/formats.md),
    or sr_hw= a hardware rule (ptx-cvt.rs.e4m3x4, onednn-bf16, ...: sets
    N, the variant, nan and saturate as the instruction does).
    saturate: False (IEEE overflow), True or 'propagate' (overflow gives
    the largest finite value, an infinity stays infinite), 'finite'
    (infinities too become the largest finite), 'none' (= False);
    ftz/daz: flush tiny results / subnormal inputs; nan: the NaN preset
    (x86 arm riscv cuda softfloat sign sign-pos default-neg first);
    tininess: 'after' or 'before'.  x: float32 or float64 (the library's
    bulk rounding), float16 or bfloat16 (fmt must fit in them), or
    unsigned codes of in_fmt.  out=: a preallocated result array (may be
    x itself).  return_flags: also the IEEE flags of all elements, OR-ed.
    """
    if type(x) is _np.ndarray:
        srb = (None if rbits is None and nbits is None and variant is None and
               sr_hw is None else
               _srb(rbits, nbits, variant, sr_hw, x.shape, "fplab.round"))
        r, f = _c.round(x, fmt, rm, seed, offset, saturate, ftz, daz, nan,
                        tininess, threads, out, in_fmt, srb)
        return (r, _flags(f)) if return_flags else r
    a, cf, kind = _to_numpy(x, "x", "fplab.round")
    if out is not None:
        out, _, _ = _to_numpy(out, "out", "fplab.round")
    srb = _srb(rbits, nbits, variant, sr_hw, a.shape, "fplab.round")
    r, f = _c.round(a, fmt, rm, seed, offset, saturate, ftz, daz, nan, tininess,
                    threads, out, cf or in_fmt, srb)
    r = _back(r, kind, cf)
    return (r, _flags(f)) if return_flags else r


def encode(x, fmt, rm="rne", *, seed=None, offset=0, rbits=None, nbits=None,
           variant=None, sr_hw=None, saturate=False, ftz=False, daz=False,
           nan=None, tininess=None, threads=0, in_fmt=None,
           return_flags=False):
    """The codes of x rounded into fmt: uint8, uint16, uint32 or uint64 by
    fmt's width (torch: uint8, or int16/32/64 holding the same bits).
    Same arguments as fplab.round (rm='srb' with rbits=, nbits=,
    variant= or sr_hw= included)."""
    a, cf, kind = _to_numpy(x, "x", "fplab.encode")
    srb = _srb(rbits, nbits, variant, sr_hw, a.shape, "fplab.encode")
    r, f = _c.encode(a, fmt, rm, seed, offset, saturate, ftz, daz, nan,
                     tininess, threads, cf or in_fmt, srb)
    if kind.scalar:
        r = int(r)
    else:
        r = _back(r, kind)
    return (r, _flags(f)) if return_flags else r


def decode(codes, fmt, *, threads=0):
    """The values of codes of fmt: float32 when every value of fmt is a
    float32 value, else float64 (exact in both cases)."""
    if isinstance(codes, int) and not isinstance(codes, bool):
        f = Format(fmt)
        dt = (_np.uint8 if f.bits <= 8 else _np.uint16 if f.bits <= 16
              else _np.uint32 if f.bits <= 32 else _np.uint64)
        if codes < 0 or codes >= 1 << f.bits:
            raise ValueError("fplab.decode: code %#x does not fit %s's %d bits"
                             % (codes, f, f.bits))
        return float(_c.decode(_np.asarray(codes, dtype=dt), fmt, threads))
    a, cf, kind = _to_numpy(codes, "codes", "fplab.decode")
    return _back(_c.decode(a, fmt, threads), kind)


# ---- element-wise arithmetic ---------------------------------------------

def _arith(op, operands, fmt, rm, seed, offset, saturate, ftz, daz, nan,
           tininess, return_flags, threads, in_fmt, rbits=None, nbits=None,
           variant=None, sr_hw=None):
    where = "fplab." + op
    names = ("x",) if len(operands) == 1 else ("a", "b", "c")
    arrs, kind, cf = [], None, None
    for v, name in zip(operands, names):
        a, c, k = _to_numpy(v, name, where)
        if k.scalar:
            arrs.append(None)
            continue
        if kind is None:
            kind, cf = k, c
        arrs.append(a)
    ref = next((a for a in arrs if a is not None), None)
    if ref is None:
        arrs = [_np.asarray(v, dtype=_np.float64) for v in operands]
        kind = _arrays_scalar
    else:
        arrs = [_np.asarray(v, dtype=ref.dtype) if a is None else a
                for v, a in zip(operands, arrs)]
    try:
        arrs = _np.broadcast_arrays(*arrs)
    except ValueError:
        raise ValueError("%s: the shapes %s do not broadcast together" % (
            where, ", ".join(str(a.shape) for a in arrs))) from None
    arrs = tuple(_np.require(a, requirements=["C"]) for a in arrs)
    srb = _srb(rbits, nbits, variant, sr_hw, arrs[0].shape, where,
               "the operands' broadcast shape is")
    r, each, f = _c.arith(op, fmt, arrs, rm, seed, offset, saturate, ftz, daz,
                          nan, tininess, bool(return_flags), threads,
                          cf or in_fmt or fmt, srb)
    r = _back(r, kind, cf or (str(Format(in_fmt or fmt)) if kind.torch and
                              (in_fmt or fmt) is not None else None))
    if return_flags:
        return r, (_back(each, kind) if not kind.scalar else Flags(int(each))), _flags(f)
    return r


from ._arrays import Kind as _Kind  # noqa: E402
_arrays_scalar = _Kind(scalar=True)

_ARITH_DOC = """{op} in the format fmt (default: the operands' own), one
rounding in mode rm.  The operands must hold values of fmt (a ValueError
names the first that does not: round it first); they broadcast like numpy
arrays, and a Python number takes the other operands' dtype.  float32 /
float64 arrays hold the values (fmt must fit in them), float16 and bfloat16
their own, unsigned codes those of in_fmt (or fmt).  Every element rounds
with stochastic-rounding index offset + i, or in rm='srb' with its own
supplied random bits rbits[i] (rbits of the broadcast shape; nbits=,
variant=, sr_hw= as in fplab.round).  saturate: False, True /
'propagate', 'finite', 'none' as in fplab.round.  nan: the NaN preset
(x86 arm riscv cuda softfloat sign sign-pos default-neg first).
return_flags: also (per-element flags as uint8: Flags bits, ternary
included; the IEEE flags of all elements OR-ed)."""


def add(a, b, fmt=None, rm="rne", *, seed=None, offset=0, rbits=None,
        nbits=None, variant=None, sr_hw=None, saturate=False, ftz=False,
        daz=False, nan=None, tininess=None, return_flags=False, threads=0,
        in_fmt=None):
    return _arith("add", (a, b), fmt, rm, seed, offset, saturate, ftz, daz,
                  nan, tininess, return_flags, threads, in_fmt, rbits, nbits,
                  variant, sr_hw)


def sub(a, b, fmt=None, rm="rne", *, seed=None, offset=0, rbits=None,
        nbits=None, variant=None, sr_hw=None, saturate=False, ftz=False,
        daz=False, nan=None, tininess=None, return_flags=False, threads=0,
        in_fmt=None):
    return _arith("sub", (a, b), fmt, rm, seed, offset, saturate, ftz, daz,
                  nan, tininess, return_flags, threads, in_fmt, rbits, nbits,
                  variant, sr_hw)


def mul(a, b, fmt=None, rm="rne", *, seed=None, offset=0, rbits=None,
        nbits=None, variant=None, sr_hw=None, saturate=False, ftz=False,
        daz=False, nan=None, tininess=None, return_flags=False, threads=0,
        in_fmt=None):
    return _arith("mul", (a, b), fmt, rm, seed, offset, saturate, ftz, daz,
                  nan, tininess, return_flags, threads, in_fmt, rbits, nbits,
                  variant, sr_hw)


def div(a, b, fmt=None, rm="rne", *, seed=None, offset=0, rbits=None,
        nbits=None, variant=None, sr_hw=None, saturate=False, ftz=False,
        daz=False, nan=None, tininess=None, return_flags=False, threads=0,
        in_fmt=None):
    return _arith("div", (a, b), fmt, rm, seed, offset, saturate, ftz, daz,
                  nan, tininess, return_flags, threads, in_fmt, rbits, nbits,
                  variant, sr_hw)


def fma(a, b, c, fmt=None, rm="rne", *, seed=None, offset=0, rbits=None,
        nbits=None, variant=None, sr_hw=None, saturate=False, ftz=False,
        daz=False, nan=None, tininess=None, return_flags=False, threads=0,
        in_fmt=None):
    return _arith("fma", (a, b, c), fmt, rm, seed, offset, saturate, ftz, daz,
                  nan, tininess, return_flags, threads, in_fmt, rbits, nbits,
                  variant, sr_hw)


def sqrt(x, fmt=None, rm="rne", *, seed=None, offset=0, rbits=None,
         nbits=None, variant=None, sr_hw=None, saturate=False, ftz=False,
         daz=False, nan=None, tininess=None, return_flags=False, threads=0,
         in_fmt=None):
    return _arith("sqrt", (x,), fmt, rm, seed, offset, saturate, ftz, daz,
                  nan, tininess, return_flags, threads, in_fmt, rbits, nbits,
                  variant, sr_hw)


for _f, _op in ((add, "a + b"), (sub, "a - b"), (mul, "a * b"),
                (div, "a / b"), (fma, "a * b + c (one rounding)"),
                (sqrt, "sqrt(x)")):
    _f.__doc__ = _ARITH_DOC.format(op=_op)


# ---- models and references -----------------------------------------------

class Model:
    """An arithmetic model of a sum, dot or GEMM kernel (docs/kernels.md).

    Model(line) reads a canonical line or any of its key=value words (keys
    left out keep their defaults); Model(acc="binary32", order="pairwise:8",
    ...) builds one from keywords (a key's '-' written '_', `in` as in_);
    both at once apply the keywords on top of the line.  str(model) is the
    canonical line.  Keys: in acc acc-rm products order tc out out-rm
    epilogue ftz daz nan saturate tininess seed.  Keys not given (in, out)
    are taken from the data by fplab.ref's functions, as `fplab ref` does.
    """

    __slots__ = ("words", "line", "_keys")

    def __init__(self, line=None, **keys):
        if isinstance(line, Model):
            line = line.words
        words = [] if line is None else [str(line)]
        for k, v in keys.items():
            k = "in" if k in ("in_", "input") else k.replace("_", "-")
            if isinstance(v, bool):
                v = int(v)
            words.append("%s=%s" % (k, v))
        self.words = " ".join(w for w in words if w.strip())
        self.line = _c.model(self.words)
        self._keys = None

    def __str__(self):
        return self.line

    def __repr__(self):
        return "fplab.Model(%r)" % self.line

    def __eq__(self, other):
        if isinstance(other, str):
            other = Model(other)
        return isinstance(other, Model) and self.line == other.line

    def __hash__(self):
        return hash(self.line)

    def keys(self):
        """The canonical line as a dict: {'in': 'binary32', 'acc-rm': 'rne', ...}."""
        if self._keys is None:
            self._keys = dict(w.split("=", 1) for w in self.line.split())
        return dict(self._keys)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        k = self.keys()
        key = "in" if name in ("in_", "input") else name.replace("_", "-")
        if key in k:
            return k[key]
        raise AttributeError("fplab.Model has no key %r" % name)


def _words(model):
    if model is None:
        return ""
    if isinstance(model, Model):
        return model.words
    if isinstance(model, str):
        return model
    raise TypeError("a model is a fplab.Model or its line, not %s"
                    % type(model).__name__)


from . import ref  # noqa: E402  (uses Model)


# ---- the verdict ----------------------------------------------------------

class Verdict:
    """fplab.compare's result: .ok, str() (the text `fplab compare`
    prints), .to_json() (the JSON `fplab compare --json` writes), and the
    parts: .counts, .histogram [(lo, hi, count)], .max_ulp, .worst (the
    element of the largest ulp distance), .first_nan, .first_inf (the first
    NaN and infinity disagreements), .mismatches (show= of them)."""

    def __init__(self, text, js, ok):
        self.text = text
        self._json = js
        self.ok = ok
        self.json = _json.loads(js)
        j = self.json
        self.counts = j["counts"]
        self.elements = j["elements"]
        self.histogram = [(h["lo"], h["hi"], h["count"]) for h in j["ulp_histogram"]]
        self.worst = j["max_ulp"]
        self.max_ulp = j["max_ulp"]["ulp"] if j["max_ulp"] else None
        self.first_nan = j["first_nan_disagreement"]
        self.first_inf = j["first_inf_disagreement"]
        self.mismatches = j["mismatches"]
        self.tolerance = j["tolerance"]

    def to_json(self):
        return self._json

    def __str__(self):
        return self.text

    def __repr__(self):
        return "<fplab.Verdict %s: %d of %d elements outside tolerance>" % (
            "PASS" if self.ok else "FAIL", self.counts["outside_tolerance"],
            self.elements)

    def __bool__(self):
        return self.ok


def _cmp_tensor(x, fmt, name, what):
    a, cf, _ = _to_numpy(x, what, "fplab.compare")
    return (a, cf or fmt, name, _dtype_name(x))


def compare(actual, expected, *, ulp=None, rtol=None, atol=None,
            torch_defaults=False, fmt=None, nan_payload=False,
            signed_zero=False, inputs=(), in_fmt=None, exact=None,
            exact_fmt=None, show=0, gemm=False, tile=None, kblock=None,
            ta=False, tb=False, model=None, kernel_model=None,
            names=("actual", "expected"), input_names=None, exact_name="exact",
            threads=0):
    """The verdict on a kernel's output `actual` against a reference
    `expected` (`fplab compare`, the same text and JSON for the same
    elements).  Default: bit-identical required (a NaN matches any NaN);
    ulp=N, rtol=/atol= (|a - e| <= atol + rtol*|e| in binary64, as
    torch.isclose) or torch_defaults=True (torch.testing.assert_close's
    rtol/atol for the dtype).  fmt: what unsigned codes hold (numpy has no
    bfloat16).  inputs=[a, b]: the kernel's operands (shown at the worst
    element; GEMM, reduction, dot or element-wise by their shapes); exact=:
    the correctly rounded result (relative errors of both sides); show=K:
    the first K mismatches; gemm=, tile=(h, w), kblock=B: where the
    differences are in a GEMM output.  model=: the reference's model line
    (shown).  names, input_names, exact_name: how the text names the
    arrays (`fplab compare` shows the files' names)."""
    if sum((ulp is not None, rtol is not None or atol is not None,
            bool(torch_defaults))) > 1:
        raise ValueError("fplab.compare: choose one tolerance: ulp=, rtol=/atol= "
                         "or torch_defaults=True")
    k = _cmp_tensor(actual, fmt, str(names[0]), "actual")
    r = _cmp_tensor(expected, fmt, str(names[1]), "expected")
    if input_names is None:
        input_names = ["inputs[%d]" % i for i in range(len(inputs))]
    if len(input_names) != len(inputs):
        raise ValueError("fplab.compare: %d input_names for %d inputs"
                         % (len(input_names), len(inputs)))
    ins = [_cmp_tensor(v, in_fmt, str(nm), "inputs[%d]" % i)
           for i, (v, nm) in enumerate(zip(inputs, input_names))]
    x = (None if exact is None
         else _cmp_tensor(exact, exact_fmt, str(exact_name), "exact"))
    if tile is not None:
        if isinstance(tile, int):
            tile = (tile, tile)
        th, tw = (int(v) for v in tile)
        if th < 1 or tw < 1:
            raise ValueError("fplab.compare: tile is (rows, columns), two "
                             "positive integers")
        gemm = True
    else:
        th = tw = 0
    if kblock:
        gemm = True
    opts = {"kind": "ulp" if ulp is not None else "close"
            if rtol is not None or atol is not None else "exact",
            "ulp": ulp, "rtol": rtol or 0.0, "atol": atol or 0.0,
            "torch_defaults": bool(torch_defaults),
            "nan_payload": bool(nan_payload), "signed_zero": bool(signed_zero),
            "show": show, "gemm": bool(gemm), "tile_h": th, "tile_w": tw,
            "kblock": kblock or 0, "ta": bool(ta), "tb": bool(tb),
            "model": None if model is None else str(model),
            "kernel_model": None if kernel_model is None else str(kernel_model),
            "threads": threads}
    text, js, ok = _c.compare(k, r, ins, x, opts)
    return Verdict(text, js, ok)


from . import testing  # noqa: E402


# ---- reveal ---------------------------------------------------------------

class Revealed:
    """fplab.reveal's result: .ok (a model found that replays every
    validation case), .model (that fplab.Model, else None), .closest (the
    closest model when none replays everything), .status (found, mismatch,
    nondeterministic, unrevealed), .report / str() (the findings, as
    `fplab reveal` prints them), .calls, .seconds, .kernel_seconds,
    .cases, .agreed, .counterexample; .nan_only (of .agreed, the cases
    that agree only as a NaN against a NaN: the model says nan=any),
    .valid_calls (calls that made validation cases), .batch_max (GEMM:
    matrices per batched call, 0: 2-D calls), .lengths (the lengths whose
    trees were revealed, n or k first), .order_travels (the order is a
    family fplab.ref computes at every length; False: the tree at n alone,
    .travel_note says why), .notes (what the model was checked on, the
    lines `fplab reveal` writes as the model file's comments),
    .model_file (that file's text) and .save(path) to write it."""

    def __init__(self, d, kernel_name):
        self.status = d["status"]
        self.ok = self.status == "found"
        line = d["model"]
        self.model = Model(line) if self.ok and line else None
        self.closest = Model(line) if not self.ok and line else None
        self.calls = d["calls"]
        self.seconds = d["seconds"]
        self.kernel_seconds = d["kernel_seconds"]
        self.cases = d["cases"]
        self.agreed = d["agreed"]
        self.counterexample = d["counterexample"]
        self.message = d["message"]
        self.out = d["out"]
        self.nan_only = d["nan_only"]
        self.valid_calls = d["valid_calls"]
        self.batch_max = d["batch_max"]
        self.lengths = list(d["lengths"])
        self.order_travels = d["order_travels"]
        self.travel_note = d["travel_note"]
        self.notes = d["notes"].splitlines()
        self.model_file = d["model_file"]
        # the closing lines are the library's (fl_reveal_*_text), the same
        # `fplab reveal` prints; the message is the one it sends to stderr
        lines = ["fplab.reveal: kernel: %s" % kernel_name, d["log"].rstrip("\n"),
                 "" if self.ok else self.message, d["outcome"].rstrip("\n"),
                 d["calls_line"].rstrip("\n")]
        self.report = "\n".join(l for l in lines if l) + "\n"

    def save(self, path):
        """Write the model file (`fplab reveal --model-out`'s text, for
        `fplab ref --model` and fplab.Model(open(path).read())): through a
        temporary name renamed into place, so an interrupted write leaves
        no half file.  Only a found model is saved (ValueError otherwise)."""
        import os
        import tempfile
        if not self.ok:
            raise ValueError("fplab.Revealed.save: no model to save (status %s: "
                             "%s)" % (self.status, self.message))
        path = os.fspath(path)
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".fplab-model-", dir=d)
        try:
            with os.fdopen(fd, "w") as fp:
                fp.write(self.model_file)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def __str__(self):
        return self.report

    def __repr__(self):
        return "<fplab.Revealed %s: %s>" % (self.status, self.model or self.closest)

    def __bool__(self):
        return self.ok


def _reveal_dtype(dtype):
    """(format name, torch or not) of reveal's dtype= argument."""
    from ._arrays import torch_module
    t = torch_module()
    if t is not None and isinstance(dtype, t.dtype):
        names = {t.float32: "binary32", t.float16: "binary16",
                 t.bfloat16: "bfloat16"}
        if dtype not in names:
            raise ValueError("fplab.reveal: dtype %s: the inputs are float32, "
                             "float16 or bfloat16" % dtype)
        return names[dtype], True
    if isinstance(dtype, str):
        return dtype, False
    try:
        return str(_np.dtype(dtype)), False
    except TypeError:
        raise TypeError("fplab.reveal: dtype is a name ('float32', 'float16', "
                        "'bfloat16'), a numpy dtype or a torch dtype, not %r"
                        % (dtype,)) from None


def reveal(fn, op, *, n, m=None, k=None, dtype, batch=0, rows=0,
           validate=100000, validate_calls=20, lengths=None, no_batch=False,
           seed=1, call_elems=1 << 24, threads=0, verbose=False):
    """The arithmetic model of the kernel fn (`fplab reveal`, in process).

    op: "sum" (fn(x) -> the sum of each row of x: (R, n) -> (R,)), "dot"
    (fn(a, b) -> row-wise dot products) or "gemm" (fn(A, B) -> A @ B, A m x
    k, B k x n).  dtype: the inputs' float32, float16 or bfloat16 -- numpy
    arrays (bfloat16 as uint16 codes) for a name or numpy dtype, torch
    tensors for a torch dtype.  fn returns a numpy array or torch tensor of
    float32, float16, float64 or bfloat16 (numpy: uint16 codes).  With
    batch=B every array gets a leading axis of B (fn must accept 3-D
    arrays); the engine may also send 3-D calls on its own (a GEMM is tried
    once with a batch axis; no_batch=True: never).  validate: the cases the
    model must replay bit for bit; validate_calls: at most that many calls
    of validation inputs (default 20, 0: no limit; fewer cases when calls
    are small, .cases says how many).  lengths=[L, ...]: more lengths (sum,
    dot: n; gemm: k) to reveal the tree at, the order written must fit
    every one (default: n+1 and a longer one when the tree at n is no
    named order); .order_travels and .notes say which lengths the model
    covers.  verbose=True prints the findings as they come (or pass a
    callable taking each line).

    A kernel that raises stops the reveal and its exception propagates; a
    result of the wrong shape or dtype is a ValueError / TypeError.  A
    nondeterministic kernel, or one no model replays, is a result with
    .ok False that says why."""
    fmt, as_torch = _reveal_dtype(dtype)
    from . import _arrays
    to_k = _arrays.codes_to_torch if as_torch else None
    log = print if verbose is True else (verbose or None)
    if log is not None and not callable(log):
        raise TypeError("fplab.reveal: verbose is True, False or a callable")
    # the probes overflow and make NaNs on purpose: numpy's warnings about
    # them say nothing about the kernel
    with _np.errstate(all="ignore"):
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        d = _c.reveal(fn, str(op), int(n), int(m or 0), int(k or 0), fmt,
                      int(batch), int(rows), int(validate), int(seed),
                      int(call_elems), int(threads), to_k,
                      _arrays.result_to_numpy, log, int(validate_calls),
                      lengths,
                      not no_batch, "fplab.reveal(%s)" % name)
    return Revealed(d, name)


# ---- scaling --------------------------------------------------------------

class Quantized(tuple):
    """(dequantized, codes, scales) of fplab.quantize, with .stats (the
    counts and relative errors), .amax, .scale, .scale_inv (per-tensor and
    NVFP4 tensor scales), .scheme, .description."""

    def __new__(cls, deq, codes, scales, d):
        self = super().__new__(cls, (deq, codes, scales))
        self.stats = d["stats"]
        self.amax = d["tensor"]["amax"]
        self.scale = d["tensor"]["scale"]
        self.scale_inv = d["tensor"]["scale_inv"]
        self.scheme = d["scheme"]
        self.description = d["description"]
        self.block = d["block"]
        self.last = d["last"]
        return self

    dequantized = property(lambda self: self[0])
    codes = property(lambda self: self[1])
    scales = property(lambda self: self[2])


def _as_float32(x, where):
    a, cf, kind = _to_numpy(x, "x", where)
    if cf is not None or a.dtype.kind != "f":
        if cf == "bfloat16":
            a = (a.astype(_np.uint32) << 16).view(_np.float32)
        else:
            raise TypeError("%s: x is %s: give float values (float16, "
                            "bfloat16, float32, float64)" % (where, a.dtype))
    return _np.ascontiguousarray(a, dtype=_np.float32), kind


def quantize(x, scheme, *, seed=None, last=None, rbits=None, nbits=None,
             variant=None):
    """x quantized with a block or per-tensor scaling scheme (`fplab
    quantize`, bit for bit): returns (dequantized, codes, scales).

    scheme: mxfp8-e4m3 mxfp8-e5m2 mxfp6-e2m3 mxfp6-e3m2 mxfp4-e2m1 mxint8
    (OCP MX: blocks of 32, E8M0 scales), nvfp4 (blocks of 16, E4M3 scales,
    an FP32 tensor scale), fp8-e4m3-tensor fp8-e5m2-tensor (Transformer
    Engine current scaling), with options after ':' (floor ceil even rceil;
    rne rna rtz sr; nonsat pow2).  x is taken as float32 (the dtype a tensor
    is quantized from); blocks run along the last axis (last=L: rows of L
    for a 1-D x).  dequantized: float32 of x's shape; codes: uint8 of x's
    shape; scales: uint8 E8M0/E4M3 block scales (..., L / block), or for a
    per-tensor scheme the float32 decoding scale, shape (1,).  Torch in,
    torch out (float32, uint8).  rbits=, nbits=, variant=: the elements
    round stochastically with supplied random bits (`fplab quantize
    --sr-bits`): rbits an unsigned integer array with one value per element
    of x (flat order), N = nbits bits each, variant as in fplab.round; the
    scheme must not name its own element rounding."""
    a, kind = _as_float32(x, "fplab.quantize")
    srb = _srb(rbits, nbits, variant, None, a.shape, "fplab.quantize",
               size_only=True)
    d = _c.quantize(a, str(scheme), seed, last,
                    None if srb is None else srb[:3])
    return Quantized(_back(d["dequant"], kind), _back(d["codes"], kind),
                     _back(d["scales"], kind), d)


class Hist:
    """fplab.hist's result (`fplab hist`): for each loss scale S, where the
    values g*S land when rounded into the format.

    .scales [S], .underflow / .subnormal / .overflow / .normal (counts per
    scale, of the .live nonzero finite values), .fractions() (the same as
    fractions), .edges (log2 bin lower edges lo .. hi-1), .counts (array
    scales x bins: values with floor(log2|g*S|) at each edge), .below /
    .above (per scale, outside the bins), .best (a best scale: no overflow,
    then fewest underflows, then fewest subnormals; None when every scale
    overflows), .best_range (lo, hi of the tied best scales), .ties,
    .pow2 (dict: no_overflow_max, no_underflow_min, no_subnormal_min: the
    exponents k of 2^k), .window ((kunder, kmax) or None), .schemes (the
    scaling schemes' statistics)."""

    def __init__(self, d):
        self.format = d["format"]
        self.n, self.live = d["n"], d["live"]
        self.zeros, self.nonfinite = d["zeros"], d["nonfinite"]
        self.min_abs = d["minabs"] if self.live else None
        self.max_abs = d["maxabs"] if self.live else None
        self.lo, self.hi = d["lo"], d["hi"]
        sc = d["scales"]
        self.scales = [s["scale"] for s in sc]
        self.underflow = [s["underflow"] for s in sc]
        self.subnormal = [s["subnormal"] for s in sc]
        self.overflow = [s["overflow"] for s in sc]
        self.normal = [s["normal"] for s in sc]
        self.below = [s["below"] for s in sc]
        self.above = [s["above"] for s in sc]
        self.edges = _np.arange(self.lo, self.hi)
        self.counts = _np.stack([s["bins"] for s in sc])
        b = d["best"]
        self.best = self.scales[b] if b >= 0 else None
        self.ties = d["ties"]
        self.best_range = (d["best_lo"], d["best_hi"]) if b >= 0 else None
        if self.live:
            self.pow2 = {"no_overflow_max": d["kmax"],
                         "no_underflow_min": d["kunder"],
                         "no_subnormal_min": d["ksub"]}
            self.window = ((d["kunder"], d["kmax"]) if d["kunder"] <= d["kmax"]
                           else None)
        else:
            self.pow2, self.window = None, None
        self.schemes = d["schemes"]
        self.last = d["last"]

    def fractions(self):
        """{scale: (underflow, subnormal, overflow, normal)} as fractions of
        the nonzero finite values."""
        den = self.live or 1
        return {s: (u / den, sb / den, o / den, nm / den) for s, u, sb, o, nm in
                zip(self.scales, self.underflow, self.subnormal,
                    self.overflow, self.normal)}

    def __str__(self):
        rows = ["format %s; %d values: %d nonzero finite, %d zero, %d inf/nan"
                % (self.format, self.n, self.live, self.zeros, self.nonfinite),
                "%12s %12s %12s %12s %12s" % ("scale", "underflow", "subnormal",
                                             "overflow", "normal")]
        for s, f in self.fractions().items():
            rows.append("%12.6g %12.6f %12.6f %12.6f %12.6f" % ((s,) + f))
        if self.best is None:
            rows.append("best scale: none (every scale overflows)")
        elif self.ties == 1:
            rows.append("best scale: %g" % self.best)
        else:
            rows.append("best scales: %g .. %g (%d tied)" % (
                self.best_range + (self.ties,)))
        if self.window:
            rows.append("window with neither overflow nor underflow: 2^%d .. 2^%d"
                        % self.window)
        return "\n".join(rows)


def _gather(grads, where):
    if isinstance(grads, (list, tuple)) and grads and not isinstance(
            grads[0], (int, float)):
        parts = [_as_float32(g, where)[0].ravel() for g in grads if g is not None]
        if not parts:
            raise ValueError("%s: no gradients (every entry is None)" % where)
        return _np.concatenate(parts)
    return _as_float32(grads, where)[0]


def hist(grads, fmt, scales=(1, 8, 1024, 65536), *, lo=-40, hi=None,
         scaling=(), last=None):
    """Where gradients land in fmt for each loss scale (`fplab hist`, the
    same counts): grads is an array or tensor, or a list of them (e.g.
    [p.grad for p in model.parameters()]), taken as float32.  scales:
    positive, exactly float32 values.  lo, hi: log2 bins (hi default 16 +
    log2 of the largest scale).  scaling: scheme names (fplab.schemes())
    applied to the same values, blocks along the last axis (last=L)."""
    g = _gather(grads, "fplab.hist")
    if g.size == 0:
        raise ValueError("fplab.hist: grads holds no values")
    if isinstance(scaling, str):
        scaling = [scaling]
    if isinstance(scales, (int, float)):
        scales = [scales]
    if last is None:
        last = 0
    d = _c.hist(g, fmt, [float(s) for s in scales], int(lo),
                None if hi is None else int(hi), [str(s) for s in scaling],
                int(last))
    return Hist(d)
