"""Kernel references: sum, dot and GEMM in a stated arithmetic model, bit
for bit what `fplab ref` writes for the same inputs (fplab/ref.h).

The model is a fplab.Model, its canonical line, or None (the default
model: binary32 accumulation, sequential order).  Keys the model leaves
out take `fplab ref`'s defaults: `in` is the inputs' format, `out` the
accumulator's.  The output comes back in the output format's dtype --
float16, float32, float64, a torch tensor of the input's kind (bfloat16
included), or unsigned codes for formats numpy lacks; return_flags=True
also gives the IEEE flags raised (fplab.Flags) and the model's canonical
line.  threads: 0 is every core; the bits never depend on it.
"""
from . import _fplab as _c
from ._arrays import to_numpy as _to_numpy, back as _back

__all__ = ["sum", "dot", "gemm"]


def _model_words(model):
    from . import _words
    return _words(model)


def _result(r, spec, flags, line, kind, return_flags):
    from . import Flags
    out = _back(r, kind, spec)
    return (out, Flags(flags & 0x1F), line) if return_flags else out


def sum(x, model=None, *, in_fmt=None, threads=0, return_flags=False):
    """The model's sum of each row of x along its last axis: (..., n) ->
    (...)."""
    a, cf, kind = _to_numpy(x, "x", "fplab.ref.sum")
    r, spec, flags, line = _c.ref_reduce("sum", _model_words(model), a, None,
                                         cf or in_fmt, threads)
    return _result(r, spec, flags, line, kind, return_flags)


def dot(a, b, model=None, *, in_fmt=None, threads=0, return_flags=False):
    """The model's dot product of each pair of rows of a and b (one shape,
    (..., n) -> (...))."""
    x, cf, kind = _to_numpy(a, "a", "fplab.ref.dot")
    y, cf2, _ = _to_numpy(b, "b", "fplab.ref.dot")
    r, spec, flags, line = _c.ref_reduce("dot", _model_words(model), x, y,
                                         cf or cf2 or in_fmt, threads)
    return _result(r, spec, flags, line, kind, return_flags)


def gemm(a, b, model=None, *, c=None, alpha=1, beta=None, ta=False, tb=False,
         in_fmt=None, threads=0, return_flags=False):
    """D = alpha * op(a) @ op(b) + beta * c in the model: a (M, K) or (batch,
    M, K), b (K, N) or (batch, K, N) (ta: a stored (K, M); tb: b stored (N,
    K)); c (M, N) or (batch, M, N) in the output format.  alpha and beta
    are values of the accumulator: a number's exact value, or a decimal
    string, rounded once to nearest even; beta defaults to 1 with c, else
    0."""
    x, cf, kind = _to_numpy(a, "a", "fplab.ref.gemm")
    y, cf2, _ = _to_numpy(b, "b", "fplab.ref.gemm")
    z = None
    if c is not None:
        z, _, _ = _to_numpy(c, "c", "fplab.ref.gemm")
    r, spec, flags, line = _c.ref_gemm(_model_words(model), x, y, z, alpha,
                                       beta, bool(ta), bool(tb),
                                       cf or cf2 or in_fmt, threads)
    return _result(r, spec, flags, line, kind, return_flags)
