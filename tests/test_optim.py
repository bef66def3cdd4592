"""ember.optim against PyTorch 2.13: the same weights, data and model in both libraries,
trained with each optimizer over many steps. SGD's losses agree to the printed digit and
its weights bit for bit (ember's add with alpha rounds as PyTorch's FMA does); the
sqrt-based optimizers (Adam, AdamW, RMSprop, Adagrad) agree bit for bit in float64 where
their sqrt agrees, and to float32's last digits elsewhere: PyTorch's float sqrt is MKL's
vector sqrt, which is not correctly rounded (about 17% of float32 results are one ulp off
NumPy's), so those runs are compared with a tolerance of a few ulps. Also: state_dict
structure and values, load_state_dict resumption, repr, zero_grad, hooks, errors."""

import copy
import importlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

N, D = 4, 3  # a batch this small keeps ember's sums in PyTorch's order


def _data(seed):
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((N, D)),
        "y": rng.standard_normal((N, 1)),
        "w": rng.standard_normal(D) * 0.5,
        "b": np.zeros(D),
        "v": rng.standard_normal(D),
    }


def _params(lib, data, dtype):
    dt = getattr(lib, dtype)
    return [lib.tensor(data[k], dtype=dt, requires_grad=True) for k in ("w", "b", "v")]


def _loss(lib, data, params, dtype):
    w, b, v = params
    dt = getattr(lib, dtype)
    x, y = lib.tensor(data["x"], dtype=dt), lib.tensor(data["y"], dtype=dt)
    difference = (lib.relu(x * w + b) * v).sum(1, keepdim=True) - y
    return (difference * difference).mean()


def _train(lib, make, data, dtype, steps=40, replay=None):
    """Train `steps` steps; with `replay` (torch's gradients per step), use those gradients."""
    params = _params(lib, data, dtype)
    optimizer = make(lib, params)
    losses, grads = [], []
    for i in range(steps):
        optimizer.zero_grad()
        loss = _loss(lib, data, params, dtype)
        if replay is None:
            loss.backward()
        else:
            for p, g in zip(params, replay[i]):
                p.grad = lib.tensor(g)
        grads.append([p.grad.numpy().copy() for p in params])
        optimizer.step()
        losses.append(repr(loss.item()))
    return losses, [p.detach().numpy() for p in params], optimizer, grads


def _plain(value):
    """A state_dict as nested Python values; a tensor as (dtype, shape, values)."""
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        return (
            "tensor",
            str(value.dtype).split(".")[-1],
            tuple(value.shape),
            value.detach().numpy(),
        )
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _assert_same_structure(ours, theirs, rtol=0.0):
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        assert ours[:3] == theirs[:3]
        if rtol:
            np.testing.assert_allclose(ours[3], theirs[3], rtol=rtol, atol=0)
        else:
            np.testing.assert_array_equal(ours[3], theirs[3])
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs)
        for key in theirs:
            _assert_same_structure(ours[key], theirs[key], rtol)
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_same_structure(a, b, rtol)
    else:
        assert type(ours) is type(theirs) and ours == theirs


DTYPES = st.sampled_from(["float32", "float64"])


@settings(max_examples=30, deadline=None)
@given(
    dtype=DTYPES,
    seed=st.integers(0, 10_000),
    lr=st.sampled_from([0.3, 0.05, 0.01]),
    momentum=st.sampled_from([0, 0.5, 0.9]),
    dampening=st.sampled_from([0, 0.1]),
    nesterov=st.booleans(),
    weight_decay=st.sampled_from([0, 0.01, 0.3]),
    maximize=st.booleans(),
    foreach=st.sampled_from([None, False, True]),
)
def test_sgd_trains_to_the_printed_digit(
    dtype, seed, lr, momentum, dampening, nesterov, weight_decay, maximize, foreach
):
    if nesterov and (momentum == 0 or dampening != 0):
        nesterov = False
    options = dict(
        lr=lr,
        momentum=momentum,
        dampening=dampening,
        nesterov=nesterov,
        weight_decay=weight_decay,
        maximize=maximize,
        foreach=foreach,
    )
    make = lambda lib, params: lib.optim.SGD(params, **options)  # noqa: E731
    data = _data(seed)
    e_losses, e_weights, e_opt, _ = _train(ember, make, data, dtype)
    t_losses, t_weights, t_opt, _ = _train(torch, make, data, dtype)
    assert e_losses == t_losses
    for a, b in zip(e_weights, t_weights):
        np.testing.assert_array_equal(a, b)
    _assert_same_structure(_plain(e_opt.state_dict()), _plain(t_opt.state_dict()))
    assert repr(e_opt) == repr(t_opt)


ADAPTIVE = {
    "Adam": lambda lib, p, **o: lib.optim.Adam(p, lr=0.02, **o),
    "Adam_amsgrad_wd": lambda lib, p, **o: lib.optim.Adam(
        p, lr=0.02, amsgrad=True, weight_decay=0.1, **o
    ),
    "Adam_maximize": lambda lib, p, **o: lib.optim.Adam(
        p, lr=0.01, betas=(0.8, 0.99), maximize=True, **o
    ),
    "Adam_decoupled": lambda lib, p, **o: lib.optim.Adam(
        p, lr=0.02, weight_decay=0.1, decoupled_weight_decay=True, **o
    ),
    "AdamW": lambda lib, p, **o: lib.optim.AdamW(p, lr=0.02, **o),
    "AdamW_amsgrad": lambda lib, p, **o: lib.optim.AdamW(
        p, lr=0.02, amsgrad=True, weight_decay=0.05, **o
    ),
    "RMSprop": lambda lib, p, **o: lib.optim.RMSprop(p, lr=0.01, **o),
    "RMSprop_centered_momentum": lambda lib, p, **o: lib.optim.RMSprop(
        p, lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.01, **o
    ),
    "RMSprop_maximize": lambda lib, p, **o: lib.optim.RMSprop(
        p, lr=0.01, maximize=True, momentum=0.3, **o
    ),
    "Adagrad": lambda lib, p, **o: lib.optim.Adagrad(p, lr=0.1, **o),
    "Adagrad_decay": lambda lib, p, **o: lib.optim.Adagrad(
        p, lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.2, **o
    ),
    "Adagrad_maximize": lambda lib, p, **o: lib.optim.Adagrad(p, lr=0.05, maximize=True, **o),
}
# a few ulps of float32 (float64) per step, after 40 steps
TOLERANCE = {"float32": 2e-5, "float64": 1e-12}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("foreach", [None, True])
@pytest.mark.parametrize("name", sorted(ADAPTIVE))
def test_adaptive_optimizers_follow_torch(name, foreach, dtype):
    """torch's gradients replayed into ember: the updates, states and groups agree."""
    make = lambda lib, params: ADAPTIVE[name](lib, params, foreach=foreach)  # noqa: E731
    data = _data(3)
    t_losses, t_weights, t_opt, t_grads = _train(torch, make, data, dtype)
    e_losses, e_weights, e_opt, _ = _train(ember, make, data, dtype, replay=t_grads)
    rtol = TOLERANCE[dtype]
    np.testing.assert_allclose(
        [float(x) for x in e_losses], [float(x) for x in t_losses], rtol=rtol
    )
    for a, b in zip(e_weights, t_weights):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)
    _assert_same_structure(_plain(e_opt.state_dict()), _plain(t_opt.state_dict()), rtol=rtol * 10)
    assert repr(e_opt) == repr(t_opt)


@pytest.mark.parametrize("name", sorted(ADAPTIVE))
def test_adaptive_optimizers_end_to_end(name):
    """ember's own forward and backward, float64: the losses agree to 1e-12."""
    make = lambda lib, params: ADAPTIVE[name](lib, params)  # noqa: E731
    data = _data(5)
    e_losses, e_weights, *_ = _train(ember, make, data, "float64")
    t_losses, t_weights, *_ = _train(torch, make, data, "float64")
    np.testing.assert_allclose(
        [float(x) for x in e_losses], [float(x) for x in t_losses], rtol=1e-12
    )
    for a, b in zip(e_weights, t_weights):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_adam_state_step_is_a_float32_tensor():
    for lib in (ember, torch):
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.Adam([p], lr=0.1)
        p.sum().backward()
        opt.step()
        step = opt.state[p]["step"]
        assert str(step.dtype).endswith("float32") and step.shape == () and step.item() == 1.0
        assert list(opt.state[p]) == ["step", "exp_avg", "exp_avg_sq"]


def _resume(lib, make, data):
    params = _params(lib, data, "float64")
    optimizer = make(lib, params)

    def step(opt, ps):
        opt.zero_grad()
        _loss(lib, data, ps, "float64").backward()
        opt.step()

    for _ in range(15):
        step(optimizer, params)
    saved = copy.deepcopy(optimizer.state_dict())
    copies = [p.detach().clone().requires_grad_() for p in params]
    for _ in range(15):
        step(optimizer, params)
    resumed = make(lib, copies)
    resumed.load_state_dict(saved)
    for _ in range(15):
        step(resumed, copies)
    for a, b in zip(params, copies):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    _assert_same_structure(_plain(resumed.state_dict()), _plain(optimizer.state_dict()))


@pytest.mark.parametrize("name", ["SGD"] + sorted(ADAPTIVE))
def test_load_state_dict_resumes_identically(name):
    """Stop after 15 steps, load the state into a fresh optimizer, go on: the same 15 more."""
    if name == "SGD":
        make = lambda lib, p: lib.optim.SGD(p, lr=0.05, momentum=0.9)  # noqa: E731
    else:
        make = ADAPTIVE[name]
    for lib in (ember, torch):
        _resume(lib, make, _data(7))


def test_state_dict_layout_with_groups():
    states = {}
    for lib in (ember, torch):
        a, b, c = (lib.ones(n, requires_grad=True) for n in (2, 3, 1))
        opt = lib.optim.SGD(
            [{"params": [a, b], "lr": 0.5}, {"params": [c], "momentum": 0.9}], lr=0.1
        )
        (a.sum() + b.sum() * 2 + c.sum() * 3).backward()
        opt.step()
        opt.add_param_group({"params": lib.ones(2, requires_grad=True), "lr": 0.01})
        states[lib] = _plain(opt.state_dict())
        assert repr(opt).count("Parameter Group") == 3
    _assert_same_structure(states[ember], states[torch])


def test_named_parameters_groups():
    states = {}
    for lib in (ember, torch):
        a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        opt = lib.optim.Adam([("a", a), ("b", b)], lr=0.1)
        (a.sum() + b.sum()).backward()
        opt.step()
        states[lib] = _plain(opt.state_dict())
    _assert_same_structure(states[ember], states[torch], rtol=1e-6)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    seen = {}
    for lib in (ember, torch):
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        (p * 2).sum().backward()
        opt.zero_grad(set_to_none=set_to_none)
        seen[lib] = None if p.grad is None else (p.grad.tolist(), p.grad.requires_grad)
    assert seen[ember] == seen[torch]


def _optimizer_module(lib):
    return importlib.import_module(lib.__name__ + ".optim.optimizer")


def _hook_log(lib):
    log = []
    p = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        log.append(("closure", lib.is_grad_enabled()))
        return loss

    pre = opt.register_step_pre_hook(
        lambda o, args, kwargs: log.append(("pre", len(args), sorted(kwargs)))
    )
    post = opt.register_step_post_hook(
        lambda o, args, kwargs: log.append(("post", lib.is_grad_enabled()))
    )
    glob = _optimizer_module(lib).register_optimizer_step_pre_hook(
        lambda o, a, k: log.append("global")
    )
    loss = opt.step(closure)
    log.append(("loss", loss.item(), p.tolist()))
    pre.remove()
    post.remove()
    glob.remove()
    opt.step(closure=closure)
    return log


def test_closure_and_hooks():
    assert _hook_log(ember) == _hook_log(torch)


def _outcome(call, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(lib)
            outcome = ("ok", repr(result))
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            outcome = (type(error).__name__, str(error).replace("ember.", "torch."))
    return outcome, [
        str(w.message) for w in caught if "optim" in str(w.message) or "duplicate" in str(w.message)
    ]


def _p(lib, n=2):
    return lib.ones(n, requires_grad=True)


ERRORS = [
    lambda m: m.optim.SGD(_p(m), lr=0.1),
    lambda m: m.optim.SGD([], lr=0.1),
    lambda m: m.optim.SGD([{"params": {_p(m)}}], lr=0.1),
    lambda m: m.optim.SGD({_p(m)}, lr=0.1),
    lambda m: (lambda p: m.optim.SGD([{"params": [p]}, {"params": [p]}]))(_p(m)),
    lambda m: (lambda p: m.optim.SGD([p, p]))(_p(m)),
    lambda m: m.optim.SGD([_p(m) * 2]),
    lambda m: m.optim.SGD([1.5]),
    lambda m: m.optim.SGD([("a", _p(m)), _p(m)]),
    lambda m: m.optim.SGD([{"params": [("a", _p(m))]}, {"params": [_p(m)]}]),
    lambda m: m.optim.SGD([_p(m)], lr=-1),
    lambda m: m.optim.SGD([_p(m)], momentum=-0.5),
    lambda m: m.optim.SGD([_p(m)], weight_decay=-1),
    lambda m: m.optim.SGD([_p(m)], nesterov=True),
    lambda m: m.optim.SGD([_p(m)], momentum=0.9, dampening=0.1, nesterov=True),
    lambda m: m.optim.Adam([_p(m)], betas=(1.0, 0.9)),
    lambda m: m.optim.Adam([_p(m)], betas=(0.9, -0.1)),
    lambda m: m.optim.Adam([_p(m)], betas=(0, 0.9)),
    lambda m: m.optim.Adam([_p(m)], eps=-1),
    lambda m: m.optim.Adam([_p(m)], lr=-0.1),
    lambda m: m.optim.Adam([_p(m)], weight_decay=-0.1),
    lambda m: m.optim.AdamW([_p(m)], lr=-0.1),
    lambda m: m.optim.RMSprop([_p(m)], alpha=-1),
    lambda m: m.optim.RMSprop([_p(m)], momentum=-1),
    lambda m: m.optim.RMSprop([_p(m)], eps=-1),
    lambda m: m.optim.Adagrad([_p(m)], lr_decay=-1),
    lambda m: m.optim.Adagrad([_p(m)], initial_accumulator_value=-1),
    lambda m: m.optim.Adagrad([_p(m)], eps=-1),
    lambda m: m.optim.SGD([_p(m)]).add_param_group([_p(m)]),
    lambda m: m.optim.SGD([_p(m)]).step(),
    lambda m: m.optim.Optimizer([_p(m)], {"lr": 0.1}).step(),
    lambda m: m.optim.Optimizer([{"params": [_p(m)]}], {"lr": _optimizer_module(m).required}),
    lambda m: m.optim.SGD([_p(m)]).load_state_dict({"state": {}, "param_groups": []}),
    lambda m: m.optim.SGD([_p(m)]).load_state_dict(
        {"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]}
    ),
    lambda m: m.optim.Adam([_p(m)], fused=True, differentiable=True),
    lambda m: m.optim.Adam([_p(m)], fused=True, foreach=True),
]


@pytest.mark.parametrize("case", ERRORS)
def test_errors_and_warnings_equal_torch(case):
    assert _outcome(case, ember) == _outcome(case, torch)


@pytest.mark.parametrize(
    "case",
    [
        lambda m: m.optim.Adam([_p(m)], fused=True),
        lambda m: m.optim.Adam([_p(m)], capturable=True),
        lambda m: m.optim.SGD([_p(m)], differentiable=True),
        lambda m: m.optim.SGD([_p(m)], lr=m.tensor(0.1)),
    ],
)
def test_what_ember_cannot_run_is_refused(case):
    with pytest.raises(NotImplementedError, match="ember.optim"):
        case(ember)


@pytest.mark.parametrize(
    "make",
    [
        lambda m, p: m.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
        lambda m, p: m.optim.Adam(p, betas=(0.8, 0.9), amsgrad=True),
        lambda m, p: m.optim.AdamW(p, foreach=False),
        lambda m, p: m.optim.RMSprop(p, centered=True),
        lambda m, p: m.optim.Adagrad(p, lr_decay=0.5),
    ],
)
def test_repr(make):
    assert repr(make(ember, [_p(ember)])) == repr(make(torch, [_p(torch)]))
