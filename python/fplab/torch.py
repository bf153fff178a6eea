"""fplab.torch: number formats inside a real PyTorch training loop.

Every rounding is fplab.round -- the C library's bulk rounding -- on the
tensor's memory, so a model trained here sees exactly the bits the library
gives for that format and mode:

    import fplab.torch as ft

    act = ft.Rounding("float8_e4m3fn")                  # activations, RNE
    grad = ft.Rounding("float8_e5m2")                   # their gradients
    for layer in (model.fc1, model.fc2):
        ft.round_output(layer, act, grad=grad)          # forward and backward
    ft.round_weight_grads(model, "bfloat16")            # weight gradients
    wsr = ft.Rounding("bfloat16", rm="sr", seed=1)      # SR bfloat16 weights
    ...
    loss.backward(); opt.step(); ft.round_weights_(model, wsr)

Rounding(fmt, rm, seed=...) is a callable on tensors with its own
stochastic-rounding stream: call j rounds element i with the random bits
of index (elements of the calls before) + i, so a run is reproducible from
its seed and never reuses a stream.  Hooks work on the gradients autograd
produces -- with torch's GradScaler, on the scaled ones, before unscale_
-- and return handles (.remove()).  Tensors on other devices are copied to
the CPU and back (the library runs on the CPU).
"""
import numpy as _np
import torch as _torch

import fplab as _fplab

__all__ = ["Rounding", "round", "round_", "quant", "round_output",
           "round_input", "round_weight_grads", "round_weights_",
           "StaticScaler"]


class Rounding:
    """A rounding into fmt in mode rm (rne rtz rdn rup rna rto sr), with
    saturate (False, True, 'propagate', 'finite')/ftz/daz/nan as
    fplab.round; with rm='sr' a stream of random
    bits from seed that advances by each call's element count."""

    def __init__(self, fmt, rm="rne", *, seed=None, saturate=False, ftz=False,
                 daz=False, nan=None, threads=0):
        self.format = _fplab.Format(fmt)
        self.rm = rm
        self.seed = (0 if seed is None else int(seed)) if rm == "sr" else None
        if rm != "sr" and seed is not None:
            raise ValueError("fplab.torch.Rounding: seed= applies to rm='sr'")
        self.saturate, self.ftz, self.daz, self.nan = saturate, ftz, daz, nan
        self.threads = threads
        self.offset = 0          # the SR index of the next call's element 0
        # the check of the format, mode, saturation and NaN rule, once
        _fplab.round(_np.zeros(1, _np.float64), self.format, rm,
                     seed=self.seed, saturate=saturate, nan=nan)

    def __repr__(self):
        return "fplab.torch.Rounding(%r, %r%s)" % (
            str(self.format), self.rm,
            "" if self.seed is None else ", seed=%d" % self.seed)

    def _apply(self, t, out=None):
        off = self.offset
        if self.rm == "sr":
            self.offset += t.numel()
        return _fplab.round(t, self.format, self.rm, seed=self.seed,
                            offset=off, saturate=self.saturate, ftz=self.ftz,
                            daz=self.daz, nan=self.nan, threads=self.threads,
                            out=out)

    def __call__(self, t):
        """t rounded, a new tensor of t's dtype (no autograd)."""
        with _torch.no_grad():
            t = t.detach()
            if t.device.type != "cpu":
                return self._apply(t.cpu()).to(t.device)
            return self._apply(t.contiguous())

    def inplace(self, t):
        """t rounded in place (its memory; no autograd)."""
        with _torch.no_grad():
            if t.device.type != "cpu" or not t.is_contiguous():
                t.copy_(self(t))
                return t
            self._apply(t.data, out=t.data)
            return t


def _rounding(r):
    if r is None or isinstance(r, Rounding):
        return r
    return Rounding(r)


def round(t, fmt, rm="rne", **kw):
    """t rounded into fmt (a new tensor of t's dtype; no autograd)."""
    return Rounding(fmt, rm, **kw)(t)


def round_(t, fmt, rm="rne", **kw):
    """t rounded into fmt in place; returns t."""
    return Rounding(fmt, rm, **kw).inplace(t)


class _Quant(_torch.autograd.Function):
    """Forward: the value rounded (or not); backward: the incoming gradient
    rounded (or passed through: the straight-through estimator)."""

    @staticmethod
    def forward(ctx, x, fwd, bwd):
        ctx.bwd = bwd
        return fwd(x) if fwd is not None else x.clone()

    @staticmethod
    def backward(ctx, g):
        return (ctx.bwd(g) if ctx.bwd is not None else g), None, None


def quant(x, forward=None, backward=None):
    """x with its value rounded by `forward` and the gradient that flows
    back through it rounded by `backward` (each a Rounding, a format name,
    or None for no rounding); autograd sees the straight-through
    estimator."""
    return _Quant.apply(x, _rounding(forward), _rounding(backward))


def _map(out, fn):
    if isinstance(out, _torch.Tensor):
        return fn(out)
    if isinstance(out, tuple):
        return tuple(_map(o, fn) for o in out)
    if isinstance(out, list):
        return [_map(o, fn) for o in out]
    return out


def round_output(module, forward=None, *, grad=None):
    """A forward hook on module: its output rounded by `forward`, the
    gradient flowing back into the output rounded by `grad` (the
    activation gradient).  Returns the hook's handle."""
    fwd, bwd = _rounding(forward), _rounding(grad)

    def hook(mod, inputs, output):
        return _map(output, lambda t: quant(t, fwd, bwd)
                    if t.is_floating_point() else t)
    return module.register_forward_hook(hook)


def round_input(module, forward=None, *, grad=None):
    """A forward pre-hook on module: its inputs rounded by `forward`, their
    gradients by `grad`.  Returns the hook's handle."""
    fwd, bwd = _rounding(forward), _rounding(grad)

    def hook(mod, inputs):
        return _map(inputs, lambda t: quant(t, fwd, bwd)
                    if t.is_floating_point() else t)
    return module.register_forward_pre_hook(hook)


def _params(m):
    if isinstance(m, _torch.nn.Module):
        return [p for p in m.parameters() if p.requires_grad]
    if isinstance(m, _torch.Tensor):
        return [m]
    return list(m)


def round_weight_grads(module, rounding):
    """Tensor hooks rounding the gradient of every parameter of module (a
    Module, a tensor or an iterable of them) when backward computes it.
    Returns the handles."""
    r = _rounding(rounding)
    return [p.register_hook(lambda g, r=r: r(g)) for p in _params(module)]


def round_weights_(module, rounding):
    """Every parameter of module rounded in place (call it after
    optimizer.step(): weights kept in a narrower format, e.g. bfloat16 with
    stochastic rounding).  Returns module."""
    r = _rounding(rounding)
    for p in _params(module):
        r.inplace(p.data)
    return module


class StaticScaler:
    """A fixed loss scale with the interface of torch's GradScaler (scale,
    unscale_, step, update, get_scale), for the CPU, where torch 1.13's
    GradScaler disables itself (its kernels are CUDA-only).  As GradScaler
    does: the loss is multiplied by the scale before backward; unscale_
    multiplies every gradient by inv_scale = 1/scale computed in float64
    and held in float32, and notes whether one is inf or NaN; step skips
    the optimizer's step when one was (and counts it in .skipped)."""

    def __init__(self, scale=2.0 ** 16):
        self._scale = float(scale)
        self._found = None
        self.skipped = 0

    def get_scale(self):
        return self._scale

    def is_enabled(self):
        return True

    def scale(self, loss):
        return loss * self._scale

    def unscale_(self, optimizer):
        if self._found is not None:
            return
        inv = _torch.tensor(1.0 / self._scale, dtype=_torch.float32)
        found = False
        with _torch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv.to(p.grad.dtype))
                    found = found or not bool(_torch.isfinite(p.grad).all())
        self._found = found

    def step(self, optimizer, *args, **kwargs):
        self.unscale_(optimizer)
        if self._found:
            self.skipped += 1
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        if new_scale is not None:
            self._scale = float(new_scale)
        self._found = None
