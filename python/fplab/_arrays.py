"""How arrays and tensors travel to the C library and back.

numpy arrays go to the extension as they are (float16/32/64 values, or
unsigned codes of a named format).  A torch CPU tensor travels as a numpy
view of its memory -- no copy -- and the result comes back as a tensor of
the same kind: float16, float32 and float64 through numpy's dtypes,
bfloat16 as uint16 codes of the format bfloat16, viewed back as bfloat16.
torch is never imported here: a tensor can only exist once the caller has
imported it.
"""
import sys

import numpy as np

_INT_VIEW = {np.dtype(np.uint8): np.uint8, np.dtype(np.uint16): np.int16,
             np.dtype(np.uint32): np.int32, np.dtype(np.uint64): np.int64}


def torch_module():
    """torch if the caller has imported it, else None."""
    return sys.modules.get("torch")


def is_tensor(x):
    t = sys.modules.get("torch")
    return t is not None and isinstance(x, t.Tensor)


class Kind:
    """Where an array came from, to give the result back the same way."""
    __slots__ = ("torch", "device", "scalar")

    def __init__(self, torch=False, device=None, scalar=False):
        self.torch = torch
        self.device = device
        self.scalar = scalar


NUMPY = Kind()


def to_numpy(x, what, where, copy_devices=False):
    """(numpy view, codes format or None, Kind) for an array, a tensor or
    numbers.  Tensors: CPU only, unless copy_devices (then copied to the
    CPU and the result copied back)."""
    if type(x) is np.ndarray:
        return x, None, NUMPY
    if is_tensor(x):
        torch = sys.modules["torch"]
        dev = x.device
        if dev.type != "cpu":
            if not copy_devices:
                raise ValueError("%s: %s is on %s: fplab works on CPU tensors "
                                 "(move it with .cpu())" % (where, what, dev))
            x = x.detach().cpu()
        x = x.detach()
        dt = x.dtype
        kind = Kind(torch=True, device=dev)
        if dt == torch.bfloat16:
            return x.view(torch.int16).numpy().view(np.uint16), "bfloat16", kind
        if dt in (torch.float16, torch.float32, torch.float64, torch.uint8):
            return x.numpy(), None, kind
        if dt in (torch.int16, torch.int32, torch.int64):
            a = x.numpy()
            return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]), None, kind
        raise TypeError("%s: %s is a torch tensor of %s: expected float16, "
                        "bfloat16, float32 or float64 (or integer codes of a "
                        "named format)" % (where, what, dt))
    if isinstance(x, np.generic):
        return np.asarray(x), None, NUMPY
    if isinstance(x, (float, int)) and not isinstance(x, bool):
        return np.asarray(x, dtype=np.float64), None, Kind(scalar=True)
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtype=np.float64), None, NUMPY
    raise TypeError("%s: %s is a %s: expected a numpy array, a torch tensor or "
                    "numbers" % (where, what, type(x).__name__))


def back(a, kind, fmt_spec=None):
    """The result array a the way its input came: a torch tensor (bfloat16
    when a holds bfloat16 codes), a Python float, or a numpy array."""
    if kind is NUMPY:
        return a
    if kind.scalar:
        return float(a) if a.dtype.kind == "f" else int(a)
    if kind.torch:
        torch = sys.modules["torch"]
        if fmt_spec == "bfloat16" and a.dtype == np.uint16:
            t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
        elif a.dtype in _INT_VIEW:
            t = torch.from_numpy(a.view(_INT_VIEW[a.dtype]))
        else:
            t = torch.from_numpy(a)
        if kind.device is not None and kind.device.type != "cpu":
            t = t.to(kind.device)
        return t
    return a


def dtype_name(x):
    """The dtype's name as the report shows it ("float32", "bfloat16")."""
    if is_tensor(x):
        return str(x.dtype).replace("torch.", "")
    return str(np.asarray(x).dtype)


def result_to_numpy(r):
    """A kernel's result for the reveal engine: numpy arrays as they are,
    tensors as numpy views (bfloat16 as uint16 codes)."""
    if type(r) is np.ndarray:
        return r
    if is_tensor(r):
        a, _, _ = to_numpy(r, "the kernel's result", "fplab.reveal",
                           copy_devices=True)
        return a
    return np.asarray(r)


def codes_to_torch(a):
    """A reveal input (float32/float16 values, uint16 bfloat16 codes) as a
    torch tensor."""
    torch = sys.modules["torch"]
    if a.dtype == np.uint16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def rbits_array(r, shape, where, what="x", size_only=False):
    """Supplied random bits (rm='srb') as a C-contiguous uint64 array of
    `shape` (size_only: of its element count, any shape).  numpy unsigned
    integers as they are; signed ones must hold no negative value; torch
    uint8 / int16 / int32 / int64 tensors are bit containers (an int64
    holds 64 random bits, sign bit included); a Python int for one
    element."""
    if is_tensor(r):
        torch = sys.modules["torch"]
        if r.dtype not in (torch.uint8, torch.int16, torch.int32, torch.int64):
            raise TypeError("%s: rbits is a torch tensor of %s: the random bits "
                            "are integers (uint8, int16, int32, int64 as bit "
                            "containers)" % (where, r.dtype))
        a = r.detach().cpu().numpy()
        a = a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])
    elif isinstance(r, bool) or isinstance(r, np.bool_):
        raise TypeError("%s: rbits is a bool: the random bits are unsigned "
                        "integers" % where)
    elif isinstance(r, int):
        if r < 0 or r >= 1 << 64:
            raise ValueError("%s: rbits=%d: the random bits are an unsigned "
                             "integer below 2**64" % (where, r))
        a = np.asarray(r, dtype=np.uint64)
    elif isinstance(r, (np.ndarray, np.generic, list, tuple)):
        a = np.asarray(r)
        if isinstance(r, (list, tuple)) and a.dtype.kind in "fO" and all(
                isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 64
                for v in np.asarray(r, dtype=object).ravel()):
            # Python ints above 2**63 make numpy choose float64
            a = np.asarray(r, dtype=np.uint64)
        if a.dtype.kind not in "ui":
            raise TypeError("%s: rbits is %s: the random bits are an unsigned "
                            "integer array (uint8 .. uint64)" % (where, a.dtype))
        if a.dtype.kind == "i" and a.size and a.min() < 0:
            i = int(np.flatnonzero(a.ravel() < 0)[0])
            raise ValueError("%s: rbits[%d] (flat index) = %d is negative: the "
                             "random bits are unsigned" % (where, i, a.ravel()[i]))
    else:
        raise TypeError("%s: rbits is a %s: expected an unsigned integer array, "
                        "a torch integer tensor or an int" % (where, type(r).__name__))
    shape = tuple(shape)
    if size_only:
        n = int(np.prod(shape, dtype=np.int64))
        if a.size != n:
            raise ValueError("%s: rbits holds %d values, %s %d: one random word "
                             "per element" % (where, a.size, what, n))
    elif a.shape != shape:
        raise ValueError("%s: rbits has shape %s, %s %s: one random word per "
                         "element" % (where, a.shape, what, shape))
    return np.ascontiguousarray(a, dtype=np.uint64)
