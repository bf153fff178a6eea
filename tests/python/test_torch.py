"""fplab.torch: roundings on tensors, the autograd function, the module
hooks, and a short training loop of a small model with float8_e4m3fn
activations, float8_e5m2 activation gradients, binary16 weight gradients
and stochastically rounded bfloat16 weights."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import fplab  # noqa: E402
import fplab.torch as ft  # noqa: E402
from test_round import same_bits  # noqa: E402


def representable(t, fmt):
    t = t.detach().float().numpy()
    return same_bits(fplab.round(t, fmt), t)


def test_rounding_and_streams(cases):
    torch.manual_seed(0)
    x = torch.randn(1000)
    assert same_bits(ft.round(x, "bf16").numpy(), fplab.round(x.numpy(), "bf16"))
    r = ft.Rounding("bfloat16", rm="sr", seed=4)
    a, b = r(x), r(x)
    assert not torch.equal(a, b)            # the stream moved on
    assert torch.equal(ft.Rounding("bfloat16", rm="sr", seed=4)(x), a)
    both = fplab.round(torch.cat([x, x]), "bfloat16", "sr", seed=4)
    assert torch.equal(torch.cat([a, b]), both) and r.offset == 2000
    y = x.clone()
    assert ft.round_(y, "fp8-e4m3") is y and torch.equal(y, ft.round(x, "fp8-e4m3"))
    h = x.to(torch.bfloat16)
    assert ft.round(h, "fp8-e5m2").dtype == torch.bfloat16
    with pytest.raises(ValueError, match="seed= applies to rm='sr'"):
        ft.Rounding("bf16", seed=1)
    # P3109's saturation names, checked when the rounding is made
    big = torch.tensor([1e6, float("inf")])
    assert ft.Rounding("p3109_k8p3se", saturate="finite")(big).tolist() == [49152.0, 49152.0]
    assert ft.Rounding("p3109_k8p3se", saturate="propagate")(big).tolist() == [49152.0, float("inf")]
    with pytest.raises(ValueError, match="saturate='sometimes'"):
        ft.Rounding("bf16", saturate="sometimes")
    with pytest.raises(ValueError, match="rm='srb' rounds with supplied random bits"):
        ft.Rounding("bf16", rm="srb")
    cases.add(7)
    assert cases.n == 7


def test_quant_forward_and_backward():
    torch.manual_seed(1)
    x = torch.randn(64, requires_grad=True)
    y = ft.quant(x, forward="fp8-e4m3", backward="fp8-e5m2")
    assert torch.equal(y.detach(), ft.round(x, "fp8-e4m3"))
    g = torch.randn(64)
    y.backward(g)
    assert torch.equal(x.grad, ft.round(g, "fp8-e5m2"))
    x.grad = None
    ft.quant(x, forward="fp8-e4m3").backward(g)     # straight through
    assert torch.equal(x.grad, g)


def test_hooks_round_what_they_say():
    torch.manual_seed(2)
    lin = torch.nn.Linear(16, 8)
    ref = torch.nn.Linear(16, 8)
    ref.load_state_dict(lin.state_dict())
    x = torch.randn(4, 16, requires_grad=True)
    h1 = ft.round_output(lin, "fp8-e4m3", grad="fp8-e5m2")
    hs = ft.round_weight_grads(lin, "binary16")
    y = lin(x)
    assert torch.equal(y.detach(), ft.round(ref(x).detach(), "fp8-e4m3"))
    g = torch.randn(4, 8)
    y.backward(g)
    gr = ft.round(g, "fp8-e5m2")
    assert torch.equal(x.grad, gr @ lin.weight.detach())
    assert torch.equal(lin.weight.grad, ft.round(gr.t() @ x.detach(), "binary16"))
    assert torch.equal(lin.bias.grad, ft.round(gr.sum(0), "binary16"))
    h1.remove()
    for h in hs:
        h.remove()
    assert torch.equal(lin(x).detach(), ref(x).detach())
    ft.round_weights_(lin, ft.Rounding("bfloat16", rm="sr", seed=1))
    assert all(representable(p, "bfloat16") for p in lin.parameters())


def data(n=512):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((n, 20)).astype(np.float32)
    w = rng.standard_normal((20, 4)).astype(np.float32)
    y = np.argmax(X @ w, axis=1)
    return torch.from_numpy(X), torch.from_numpy(y)


def train(steps=40, loss_scale=1.0, fmt_grads="binary16"):
    torch.manual_seed(3)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    act = ft.Rounding("float8_e4m3fn")
    agrad = ft.Rounding("float8_e5m2")
    seen = []
    ft.round_output(model[0], act, grad=agrad)
    model[0].register_forward_hook(lambda m, i, o: seen.append(o.detach()))
    ft.round_weight_grads(model, fmt_grads)
    wsr = ft.Rounding("bfloat16", rm="sr", seed=7)
    ft.round_weights_(model, wsr)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
    X, y = data()
    losses, grads = [], None
    for step in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(X), y)
        scaler.scale(loss * loss_scale).backward()
        if step == steps - 1:
            grads = model[2].weight.grad.clone()
        for p in model.parameters():
            p.grad /= loss_scale
        scaler.step(opt)
        scaler.update()
        ft.round_weights_(model, wsr)
        losses.append(float(loss))
    return model, losses, seen, grads


def test_training_loop(cases):
    import warnings
    warnings.simplefilter("ignore")      # GradScaler without CUDA says so
    model, losses, seen, _ = train()
    assert losses[-1] < 0.7 * losses[0], losses
    assert all(representable(p, "bfloat16") for p in model.parameters())
    assert all(representable(o, "float8_e4m3fn") for o in seen) and len(seen) == 40
    again, losses2, _, _ = train()
    assert losses2 == losses
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), again.parameters()))
    # the gradient histogram of a real layer: loss scaling keeps small
    # gradients from underflowing in binary16
    _, _, _, g1 = train(steps=3, loss_scale=1.0, fmt_grads="binary32")
    h = fplab.hist(g1, "binary16", (1, 1024, 65536))
    assert h.live > 100 and h.best is not None
    assert h.underflow[0] + h.subnormal[0] >= h.underflow[1] + h.subnormal[1]
    cases.add(len(seen) + h.live)
    assert cases.n == 40 + h.live
