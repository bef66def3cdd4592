"""torch.func.functional_call and torch.nn.utils.stateless.functional_call against torch: one
dict or a sequence of dicts, tied weights (tie_weights), strict's missing / unexpected keys,
args and kwargs forms, every argument error, gradients through the call, and the module's
own tensors back in place after the call (also after an error)."""

from __future__ import annotations

import warnings

import pytest
from func_support import same


def _linear(t):
    m = t.nn.Linear(3, 1)
    with t.no_grad():
        m.weight.copy_(t.tensor([[0.5, -1.0, 2.0]]))
        m.bias.fill_(0.25)
    return m


def _p(t):
    return {"weight": t.ones(1, 3), "bias": t.zeros(1)}


def _x(t):
    return t.tensor([1.0, 2.0, 3.0])


def _tied(t):
    class Tied(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = t.nn.Linear(2, 2, bias=False)
            self.b = t.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight
            self.register_buffer("scale", t.tensor(2.0))

        def forward(self, x, shift=0.0):
            return (self.a(x) + self.b(x)) * self.scale + shift

    m = Tied()
    with t.no_grad():
        m.a.weight.copy_(t.tensor([[1.0, 2.0], [3.0, 4.0]]))
    return m


def _fc(t):
    return t.func.functional_call


def _state(m):
    return [(n, p.detach().tolist()) for n, p in m.named_parameters()] + [
        (n, b.tolist()) for n, b in m.named_buffers()
    ]


def _call_then_state(t, call):
    """The call's outcome, and the module's state afterwards (the same tensors, same values)."""
    m = _tied(t) if call.__name__.startswith("tied") else _linear(t)
    before = {n: id(p) for n, p in m.named_parameters()}
    try:
        out = call(t, m)
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        out = (type(e).__name__, str(e))
    after = {n: id(p) for n, p in m.named_parameters()}
    return out, before == after, _state(m), sorted(vars(m)["_parameters"])


def linear_dict(t, m):
    return _fc(t)(m, _p(t), (_x(t),))


def linear_single_arg(t, m):
    return _fc(t)(m, _p(t), _x(t))


def linear_partial(t, m):
    return _fc(t)(m, {"bias": t.tensor([10.0])}, _x(t))


def linear_tuple_of_dicts(t, m):
    return _fc(t)(m, ({"weight": t.ones(1, 3)}, {"bias": t.zeros(1)}), _x(t))


def linear_list_of_dicts(t, m):
    return _fc(t)(m, [_p(t), {}], _x(t))


def linear_repeated_keys(t, m):
    return _fc(t)(m, (_p(t), _p(t)), _x(t))


def linear_not_dict(t, m):
    return _fc(t)(m, 3, _x(t))


def linear_list_with_int(t, m):
    return _fc(t)(m, [_p(t), 3], _x(t))


def linear_strict_missing(t, m):
    return _fc(t)(m, {"weight": t.ones(1, 3)}, _x(t), strict=True)


def linear_strict_unexpected(t, m):
    return _fc(t)(m, {**_p(t), "extra": t.ones(1), "alpha": t.ones(1)}, _x(t), strict=True)


def linear_strict_both(t, m):
    return _fc(t)(m, {"weight": t.ones(1, 3), "foo": t.ones(1)}, _x(t), strict=True)


def linear_error_in_forward(t, m):
    return _fc(t)(m, {"weight": t.ones(1, 2)}, _x(t))


def linear_non_tensor_value(t, m):
    return _fc(t)(m, {"weight": 3}, _x(t))


def linear_missing_submodule(t, m):
    return _fc(t)(m, {"foo.bar": t.ones(1)}, _x(t))


def linear_new_attribute(t, m):
    return _fc(t)(m, {"extra": t.ones(1)}, _x(t)), hasattr(m, "extra")


def linear_grad_through(t, m):
    p = {k: v.requires_grad_() for k, v in _p(t).items()}
    out = _fc(t)(m, p, _x(t))
    return out, t.autograd.grad(out.sum(), list(p.values()))


def tied_one_value(t, m):
    return _fc(t)(m, {"a.weight": t.eye(2)}, t.ones(2))


def tied_untied(t, m):
    return _fc(t)(m, {"a.weight": t.eye(2)}, t.ones(2), tie_weights=False)


def tied_two_values(t, m):
    return _fc(t)(m, {"a.weight": t.eye(2), "b.weight": t.zeros(2, 2)}, t.ones(2))


def tied_two_values_untied(t, m):
    return _fc(t)(
        m, {"a.weight": t.eye(2), "b.weight": t.zeros(2, 2)}, t.ones(2), tie_weights=False
    )


def tied_same_value_twice(t, m):
    e = t.eye(2)
    return _fc(t)(m, {"a.weight": e, "b.weight": e}, t.ones(2))


def tied_buffer_and_kwargs(t, m):
    return _fc(t)(m, {"scale": t.tensor(3.0)}, (t.ones(2),), {"shift": 1.0})


def tied_strict_all(t, m):
    return _fc(t)(m, {"a.weight": t.eye(2), "b.weight": t.eye(2), "scale": t.tensor(1.0)},
                  t.ones(2), strict=True)  # fmt: skip


def tied_strict_missing(t, m):
    return _fc(t)(m, {"a.weight": t.eye(2)}, t.ones(2), strict=True, tie_weights=False)


CALLS = [v for k, v in dict(globals()).items() if k.startswith(("linear_", "tied_"))]


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.__name__)
def test_functional_call(call):
    same(lambda t: _call_then_state(t, call))


def test_stateless_functional_call_warns():
    def program(t):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            out = t.nn.utils.stateless.functional_call(_linear(t), _p(t), _x(t))
        return out, [(w.category.__name__, str(w.message)) for w in ws]

    result = same(program)
    assert "FutureWarning" in str(result)


def _models(t, n=3):
    models = []
    for i in range(n):
        m = t.nn.Linear(3, 2)
        with t.no_grad():
            m.weight.copy_(t.arange(6.0).reshape(2, 3) * (i + 1) / 10)
            m.bias.fill_(float(i))
        models.append(m)
    return models


def _ensemble(t):
    models = _models(t)
    params, buffers = t.func.stack_module_state(models)

    def call(p, b, x):
        return t.func.functional_call(models[0], (p, b), (x,))

    x = t.tensor([1.0, 2.0, 3.0])
    out = t.func.vmap(call, in_dims=(0, 0, None))(params, buffers, x)
    # the output's grad_fn is left out: vmap's batched linear ends in AddBackward0 in
    # PyTorch, in ViewBackward0 in ember (a batching-rule difference, not functional_call's)
    return params, buffers, out.detach(), out.requires_grad


def _mixed_requires_grad(t):
    models = _models(t, 2)
    models[1].bias.requires_grad_(False)
    return t.func.stack_module_state(models)


def _mixed_modes(t):
    models = _models(t, 2)
    models[1].eval()
    return t.func.stack_module_state(models)


STACK_CASES = {
    "ensemble": _ensemble,
    "no_grad_models": lambda t: t.func.stack_module_state([m.requires_grad_(False) for m in _models(t, 2)]),
    "batchnorm_buffers": lambda t: t.func.stack_module_state([t.nn.BatchNorm1d(2), t.nn.BatchNorm1d(2)]),
    "empty": lambda t: t.func.stack_module_state([]),
    "mixed_requires_grad": _mixed_requires_grad,
    "mixed_modes": _mixed_modes,
    "mixed_classes": lambda t: t.func.stack_module_state([t.nn.Linear(2, 2), t.nn.Bilinear(2, 2, 2)]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(STACK_CASES))
def test_stack_module_state(name):
    same(STACK_CASES[name])
