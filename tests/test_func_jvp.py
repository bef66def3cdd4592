"""torch.func.jvp / jacfwd / hessian (forward mode on the Jvp interpreter) against torch:
values with PyTorch's signed zeros, the results' requires_grad, has_aux, argnums, nesting
(jvp of jvp, hessian = jacfwd(jacrev)), what the function sees inside jvp, and the errors."""

from __future__ import annotations

import math

import pytest
from func_support import same


def _x(t):
    return t.tensor([1.0, 2.0, 3.0])


def _y(t):
    return t.tensor([4.0, 5.0, 6.0])


def _signs(value):
    if isinstance(value, float):
        return math.copysign(1.0, value)
    if isinstance(value, list):
        return [_signs(v) for v in value]
    return None


def _with_signs(fn):
    def program(t):
        out = fn(t)
        return out, _signs(out.tolist())

    return program


def _cube(a):
    return (a**3).sum()


VALUE_CASES = {
    "jvp_sin": lambda t: t.func.jvp(lambda a: a.sin(), (_x(t),), (t.ones(3),)),
    "jvp_has_aux": lambda t: t.func.jvp(lambda a: (a.sin(), a), (_x(t),), (t.ones(3),), has_aux=True),
    "jvp_two_primals": lambda t: t.func.jvp(lambda a, b: a * b, (_x(t), _y(t)), (t.ones(3), t.zeros(3))),
    "jvp_tuple_output": lambda t: t.func.jvp(lambda a: (a.exp(), a.sum()), (_x(t),), (t.ones(3),)),
    "jvp_double_tangent": lambda t: t.func.jvp(lambda a: a, (_x(t),), (_x(t).double(),)),
    "jvp_constant_output": lambda t: t.func.jvp(lambda a: t.ones(3), (_x(t),), (t.ones(3),)),
    "jvp_requires_grad_primal": lambda t: t.func.jvp(lambda a: a.sin(), (_x(t).requires_grad_(),), (t.ones(3),)),
    "jvp_of_jvp": lambda t: t.func.jvp(
        lambda a: t.func.jvp(lambda b: b * a, (a,), (t.ones(3),))[1], (_y(t),), (t.ones(3),)),
    "jvp_matmul": lambda t: t.func.jvp(lambda a: t.eye(3) * 2 @ a, (_x(t),), (_y(t),)),
    "jacfwd_sin": _with_signs(lambda t: t.func.jacfwd(lambda a: a.sin())(_x(t))),
    "jacfwd_argnums_tuple": lambda t: t.func.jacfwd(lambda a, b: a * b, argnums=(0, 1))(_x(t), _y(t)),
    "jacfwd_argnums_1": lambda t: t.func.jacfwd(lambda a, b: a * b * b, argnums=1)(_x(t), _y(t)),
    "jacfwd_has_aux": lambda t: t.func.jacfwd(lambda a: (a.sin(), a), has_aux=True)(_x(t)),
    "jacfwd_2d": lambda t: t.func.jacfwd(lambda a: a * a)(t.arange(4.0).reshape(2, 2)),
    "jacfwd_scalar_output": lambda t: t.func.jacfwd(lambda a: a.sum())(_x(t)),
    "hessian_cube": lambda t: t.func.hessian(_cube)(_x(t)),
    "hessian_equals_jacfwd_jacrev": lambda t: t.equal(
        t.func.hessian(lambda a: (a**2).sum())(_x(t)),
        t.func.jacfwd(t.func.jacrev(lambda a: (a**2).sum()))(_x(t))),
    "hessian_sin_matmul": lambda t: t.func.hessian(lambda a: (t.eye(3) * 0.5 @ a).sin().sum())(_x(t)),
    "hessian_argnums_1": lambda t: t.func.hessian(lambda a, b: (a * b * b).sum(), argnums=1)(_x(t), _y(t)),
}  # fmt: skip

ERROR_CASES = {
    "tangent_size": lambda t: t.func.jvp(lambda a: a, (_x(t),), (t.ones(2),)),
    "primals_not_tuple": lambda t: t.func.jvp(lambda a: a, _x(t), (_x(t),)),
    "tangents_not_tuple": lambda t: t.func.jvp(lambda a: a, (_x(t),), t.ones(3)),
    "empty_primals": lambda t: t.func.jvp(lambda: t.ones(1), (), ()),
    "float_primal": lambda t: t.func.jvp(lambda a: a, (3.0,), (1.0,)),
    "int_output": lambda t: t.func.jvp(lambda a: 3, (_x(t),), (t.ones(3),)),
    "has_aux_not_tuple": lambda t: t.func.jvp(lambda a: a, (_x(t),), (t.ones(3),), has_aux=True),
    "strict_constant": lambda t: t.func.jvp(
        lambda a: t.ones(3), (_x(t),), (t.ones(3),), strict=True
    ),
    "jacfwd_complex": lambda t: t.func.jacfwd(lambda a: a)(t.ones(2, dtype=t.complex64)),
    "jacfwd_random": lambda t: t.func.jacfwd(lambda a: a * t.rand(3))(_x(t)),
    "jacfwd_argnums_range": lambda t: t.func.jacfwd(t.sin, argnums=2)(_x(t)),
}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values(name):
    same(VALUE_CASES[name])


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors(name):
    result = same(ERROR_CASES[name])
    assert isinstance(result, tuple) and result[0].endswith("Error"), result


def test_inside_jvp():
    def program(t):
        fz = t._C._functorch
        seen = {}

        def f(a):
            seen["keys"] = str(t._C._dispatch_keys(a))
            seen["level"] = fz.maybe_get_level(a)
            seen["gradtracking"] = fz.is_gradtrackingtensor(a)
            seen["requires_grad"] = a.requires_grad
            seen["stack"] = [(i.key().name, i.level()) for i in fz.get_interpreter_stack()]
            return a * 2

        t.func.jvp(f, (t.arange(6.0).reshape(2, 3),), (t.ones(2, 3),))
        return seen

    same(program)
