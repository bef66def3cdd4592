"""torch.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against torch: values,
requires_grad and grad_fn of the results (create_graph), the structure of the results
(tensor / tuple inputs and outputs), strict mode's errors and every argument error."""

from __future__ import annotations

import pytest
from func_support import same
from hypothesis import given, settings
from hypothesis import strategies as st


def _x(t):
    return t.tensor([1.0, 2.0, 3.0])


def _xr(t):
    return t.tensor([1.0, 2.0, 3.0], requires_grad=True)


def F(t):
    return t.autograd.functional


def cube(a):
    return (a**3).sum()


VALUE_CASES = {
    "jacobian_single": lambda t: F(t).jacobian(lambda a: a.sin(), _x(t)),
    "jacobian_tuple_in_out": lambda t: F(t).jacobian(
        lambda a, b: (a * b, a + b), (_x(t), _x(t) * 2)
    ),
    "jacobian_tuple_in": lambda t: F(t).jacobian(lambda a, b: a * b, (_x(t), _x(t))),
    "jacobian_2d": lambda t: F(t).jacobian(lambda a: a @ a, t.arange(4.0).reshape(2, 2)),
    "jacobian_scalar_out": lambda t: F(t).jacobian(lambda a: a.sum(), _x(t)),
    "jacobian_unused_input": lambda t: F(t).jacobian(lambda a, b: a * 2, (_x(t), _x(t))),
    "jacobian_constant_output": lambda t: F(t).jacobian(lambda a: t.ones(2), _x(t)),
    "jacobian_create_graph": lambda t: F(t).jacobian(lambda a: a**2, _xr(t), create_graph=True),
    "jacobian_create_graph_plain_input": lambda t: F(t).jacobian(
        lambda a: a**2, _x(t), create_graph=True
    ),
    "jacobian_requires_grad_input": lambda t: F(t).jacobian(lambda a: a**2, _xr(t)),
    "jacobian_float64": lambda t: F(t).jacobian(lambda a: a.exp(), _x(t).double()),
    "hessian": lambda t: F(t).hessian(cube, _x(t)),
    "hessian_tuple": lambda t: F(t).hessian(lambda a, b: (a * b * b).sum(), (_x(t), _x(t) + 1)),
    "hessian_create_graph": lambda t: F(t).hessian(cube, _xr(t), create_graph=True),
    "hessian_strict_quadratic_allowed": lambda t: F(t).hessian(
        lambda a: (a * a).sum(), _x(t), strict=True
    ),
    "hessian_linear": lambda t: F(t).hessian(lambda a: a.sum() * 2, _x(t)),
    "vjp": lambda t: F(t).vjp(lambda a: a.sin(), _x(t), t.ones(3)),
    "vjp_v_none_scalar": lambda t: F(t).vjp(lambda a: a.sum(), _x(t)),
    "vjp_tuple": lambda t: F(t).vjp(
        lambda a, b: (a * b, a), (_x(t), _x(t)), (t.ones(3), t.ones(3))
    ),
    "vjp_create_graph": lambda t: F(t).vjp(lambda a: a**2, _xr(t), t.ones(3), create_graph=True),
    "vjp_unused": lambda t: F(t).vjp(lambda a, b: a * 2, (_x(t), _x(t)), t.ones(3)),
    "jvp": lambda t: F(t).jvp(lambda a: a.sin(), _x(t), t.ones(3)),
    "jvp_tuple": lambda t: F(t).jvp(
        lambda a, b: (a * b, b), (_x(t), _x(t)), (t.ones(3), t.ones(3))
    ),
    "jvp_create_graph": lambda t: F(t).jvp(lambda a: a**2, _xr(t), t.ones(3), create_graph=True),
    "jvp_v_none": lambda t: F(t).jvp(lambda a: a * 3, t.tensor([2.0])),
    "hvp": lambda t: F(t).hvp(cube, _x(t), t.ones(3)),
    "hvp_create_graph": lambda t: F(t).hvp(cube, _xr(t), t.ones(3), create_graph=True),
    "vhp": lambda t: F(t).vhp(cube, _x(t), t.tensor([1.0, 0.0, 2.0])),
    "vhp_tuple": lambda t: F(t).vhp(
        lambda a, b: (a * b).sum(), (_x(t), _x(t)), (t.ones(3), t.ones(3))
    ),
    "vhp_linear": lambda t: F(t).vhp(lambda a: a.sum(), _x(t), t.ones(3)),
    "input_untouched": lambda t: (lambda x: (F(t).jacobian(lambda a: a * 2, x), x.requires_grad))(
        _x(t)
    ),
    "under_no_grad": lambda t: _under_no_grad(t),
}


def _under_no_grad(t):
    with t.no_grad():
        return F(t).vjp(lambda a: a**2, _xr(t), t.ones(3), create_graph=True)


ERROR_CASES = {
    "jacobian_input_float": lambda t: F(t).jacobian(lambda a: a, 3.0),
    "jacobian_tuple_with_int": lambda t: F(t).jacobian(lambda a, b: a, (_x(t), 2)),
    "jacobian_output_int": lambda t: F(t).jacobian(lambda a: 3, _x(t)),
    "jacobian_output_tuple_with_int": lambda t: F(t).jacobian(lambda a: (a, 3), _x(t)),
    "jacobian_strict_constant": lambda t: F(t).jacobian(lambda a: t.ones(3), _x(t), strict=True),
    "jacobian_strict_unused": lambda t: F(t).jacobian(lambda a, b: a * 1, (_x(t), _x(t)), strict=True),
    "jacobian_strict_create_graph_linear": lambda t: F(t).jacobian(
        lambda a: a * 2, _x(t), strict=True, create_graph=True),
    "jacobian_bad_strategy": lambda t: F(t).jacobian(lambda a: a, _x(t), strategy="foo"),
    "jacobian_forward_not_vectorized": lambda t: F(t).jacobian(lambda a: a, _x(t), strategy="forward-mode"),
    "jacobian_forward_strict": lambda t: F(t).jacobian(
        lambda a: a, _x(t), strategy="forward-mode", strict=True),
    "jacobian_forward_create_graph": lambda t: F(t).jacobian(
        lambda a: a, _x(t), strategy="forward-mode", create_graph=True),
    "jacobian_vectorize_strict": lambda t: F(t).jacobian(lambda a: a, _x(t), vectorize=True, strict=True),
    "hessian_vector_output": lambda t: F(t).hessian(lambda a: a, _x(t)),
    "hessian_tuple_output": lambda t: F(t).hessian(lambda a: (a.sum(),), _x(t)),
    "hessian_strict_linear": lambda t: F(t).hessian(lambda a: a.sum() * 2, _x(t), strict=True),
    "hessian_bad_strategy": lambda t: F(t).hessian(cube, _x(t), outer_jacobian_strategy="x"),
    "hessian_input_str": lambda t: F(t).hessian(cube, "a"),
    "vjp_v_none_vector": lambda t: F(t).vjp(lambda a: a, _x(t)),
    "vjp_v_wrong_size": lambda t: F(t).vjp(lambda a: a, _x(t), t.ones(2)),
    "vjp_v_tuple_wrong_len": lambda t: F(t).vjp(lambda a: (a, a), _x(t), (t.ones(3),)),
    "vjp_v_two_for_one": lambda t: F(t).vjp(lambda a: a, _x(t), (t.ones(3), t.ones(3))),
    "vjp_v_tuple_entry_size": lambda t: F(t).vjp(lambda a: (a, a), _x(t), (t.ones(3), t.ones(2))),
    "vjp_v_int": lambda t: F(t).vjp(lambda a: a, _x(t), 3),
    "vjp_strict_constant": lambda t: F(t).vjp(lambda a: t.ones(3), _x(t), t.ones(3), strict=True),
    "vjp_strict_unused": lambda t: F(t).vjp(lambda a, b: a * 1, (_x(t), _x(t)), t.ones(3), strict=True),
    "jvp_v_none_vector": lambda t: F(t).jvp(lambda a: a, _x(t)),
    "jvp_v_wrong_size": lambda t: F(t).jvp(lambda a: a, _x(t), t.ones(2)),
    "jvp_strict_unused_output": lambda t: F(t).jvp(lambda a: (a * 2, t.ones(2)), _x(t), t.ones(3), strict=True),
    "hvp_vector_output": lambda t: F(t).hvp(lambda a: a, _x(t), t.ones(3)),
    "hvp_tuple_output": lambda t: F(t).hvp(lambda a: (a.sum(),), _x(t), t.ones(3)),
    "hvp_v_none": lambda t: F(t).hvp(cube, _x(t)),
    "hvp_strict_linear": lambda t: F(t).hvp(lambda a: a.sum() * 2, _x(t), t.ones(3), strict=True),
    "vhp_vector_output": lambda t: F(t).vhp(lambda a: a, _x(t), t.ones(3)),
    "vhp_strict_linear": lambda t: F(t).vhp(lambda a: a.sum() * 2, _x(t), t.ones(3), strict=True),
    "vhp_strict_quadratic_create_graph": lambda t: F(t).vhp(
        lambda a: (a * a).sum(), _x(t), t.ones(3), strict=True, create_graph=True),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values(name):
    same(VALUE_CASES[name])


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors(name):
    result = same(ERROR_CASES[name])
    assert isinstance(result, tuple) and result[0].endswith("Error"), result


def test_strategy_assertion_is_assertionerror():
    result = same(ERROR_CASES["jacobian_bad_strategy"])
    assert result[0] == "AssertionError"


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 4), m=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_jacobian_of_matmul_tanh(n, m, seed):
    import numpy as np

    w = np.random.default_rng(seed).standard_normal((m, n)).astype("float32")
    same(lambda t: F(t).jacobian(lambda a: (t.tensor(w) @ a).tanh(), t.arange(float(n)) / n))
    same(lambda t: F(t).hessian(lambda a: (t.tensor(w) @ a).tanh().sum(), t.arange(float(n)) / n))
