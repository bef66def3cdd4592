"""torch.func.grad / grad_and_value / vjp against torch: values, the results' requires_grad
and grad_fn (a result requires grad only where the caller's tensor did), argnums / has_aux /
pytrees, nesting (grad of grad, grad with a captured tensor), what the function sees (the
GradTrackingTensor's key set, repr, level, the interpreter stack, the layer TLS) and every
error with PyTorch's type and message."""

from __future__ import annotations

import pytest
from func_support import same


def _x(t):
    return t.tensor([1.0, 2.0, 3.0])


def _y(t):
    return t.tensor([4.0, 5.0, 6.0])


def sq(a):
    return (a**2).sum()


def _rg(t):
    return _x(t).requires_grad_()


def _vjp_twice(t):
    out, fn = t.func.vjp(lambda a: a.sin() * a, _x(t))
    return out, fn(t.ones(3)), fn(t.tensor([1.0, 0.0, 2.0]))


def _mutate_input(t):
    def f(a):
        a.mul_(2)
        return a.sum()

    x = _x(t)
    return t.func.grad(f)(x), x


def _grad_of_grad_of_grad(t):
    G = t.func.grad
    return G(G(G(lambda a: a.sin())))(t.tensor(0.5))


def _grad_closure(t):
    y = _y(t).requires_grad_()
    g = t.func.grad(lambda a: (a * y).sum())(_x(t))
    return g, t.autograd.grad(g.sum(), y)


VALUE_CASES = {
    "grad": lambda t: t.func.grad(sq)(_x(t)),
    "grad_argnums_1": lambda t: t.func.grad(lambda a, b: (a * b).sum(), argnums=1)(_x(t), _y(t)),
    "grad_argnums_tuple": lambda t: t.func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(_x(t), _y(t)),
    "grad_argnums_negative": lambda t: t.func.grad(lambda a, b: (a * b * b).sum(), argnums=-1)(_x(t), _y(t)),
    "grad_has_aux": lambda t: t.func.grad(lambda a: (sq(a), {"n": a.norm()}), has_aux=True)(_x(t)),
    "grad_and_value": lambda t: t.func.grad_and_value(sq)(_x(t)),
    "grad_and_value_aux": lambda t: t.func.grad_and_value(lambda a: (sq(a), a.mean()), has_aux=True)(_x(t)),
    "grad_dict": lambda t: t.func.grad(lambda d: (d["w"] * d["b"]).sum())({"w": _x(t), "b": _y(t)}),
    "grad_tuple_arg": lambda t: t.func.grad(lambda p: (p[0] * p[1].exp()).sum())((_x(t), _y(t) / 10)),
    "grad_kwargs_not_differentiated": lambda t: t.func.grad(lambda a, s: (a * s).sum())(_x(t), s=_y(t)),
    "grad_of_grad": lambda t: t.func.grad(t.func.grad(lambda a: a.sin()))(t.tensor(1.0)),
    "grad_of_grad_of_grad": _grad_of_grad_of_grad,
    "grad_plain_input": lambda t: (lambda g: (g.requires_grad, g.grad_fn))(t.func.grad(sq)(_x(t))),
    "grad_requires_grad_input": lambda t: t.func.grad(sq)(_rg(t)),
    "grad_requires_grad_input_linear": lambda t: t.func.grad(lambda a: a.sum())(_rg(t)),
    "grad_closure_requires_grad": _grad_closure,
    "grad_unused_input": lambda t: t.func.grad(lambda a, b: a.sum(), argnums=(0, 1))(_x(t), _y(t)),
    "grad_constant_function": lambda t: t.func.grad(lambda a: t.tensor(2.0))(_x(t)),
    "grad_mutates_input": _mutate_input,
    "grad_under_no_grad": lambda t: _no_grad(t, lambda: t.func.grad(sq)(_rg(t))),
    "grad_matmul_tanh": lambda t: t.func.grad(lambda w: (w @ _x(t)).tanh().sum())(t.eye(3) * 0.3),
    "grad_float64": lambda t: t.func.grad(lambda a: a.exp().sum())(_x(t).double()),
    "grad_input_unchanged": lambda t: (lambda x: (t.func.grad(sq)(x), x.requires_grad, x.grad))(_x(t)),
    "grad_item_then_tensor": lambda t: t.func.grad(lambda a: a.sum() * float(a.detach().sum().item()))(_x(t)),
    "vjp": lambda t: (lambda r: (r[0], r[1](t.ones(3))))(t.func.vjp(lambda a: a.sin(), _x(t))),
    "vjp_fn_twice": _vjp_twice,
    "vjp_has_aux": lambda t: t.func.vjp(lambda a: (a.sin(), a.cos()), _x(t), has_aux=True)[2],
    "vjp_multiple_primals": lambda t: t.func.vjp(lambda a, b: a * b, _x(t), _y(t))[1](t.ones(3)),
    "vjp_tuple_output": lambda t: t.func.vjp(lambda a: (a * 2, a.sum()), _x(t))[1]((t.ones(3), t.tensor(2.0))),
    "vjp_requires_grad_input": lambda t: t.func.vjp(lambda a: a**2, _rg(t))[1](t.ones(3)),
    "vjp_output_requires_grad": lambda t: t.func.vjp(lambda a: a**2, _rg(t))[0],
    "vjp_fn_no_create_graph": lambda t: t.func.vjp(lambda a: a**2, _rg(t))[1](t.ones(3), create_graph=False),
}  # fmt: skip


def _no_grad(t, fn):
    with t.no_grad():
        return fn()


ERROR_CASES = {
    "vector_output": lambda t: t.func.grad(lambda a: a * 2)(_x(t)),
    "item_output": lambda t: t.func.grad(lambda a: a.sum().item())(_x(t)),
    "float_output": lambda t: t.func.grad(lambda a: 3.0)(_x(t)),
    "argnum_out_of_range": lambda t: t.func.grad(lambda a: (a * 2).sum(), argnums=2)(_x(t)),
    "argnum_negative_out_of_range": lambda t: t.func.grad(sq, argnums=-2)(_x(t)),
    "argnums_float": lambda t: t.func.grad(sq, argnums=0.0)(_x(t)),
    "argnums_list": lambda t: t.func.grad(sq, argnums=[0])(_x(t)),
    "argnums_empty": lambda t: t.func.grad(sq, argnums=())(_x(t)),
    "argnums_repeated": lambda t: t.func.grad(lambda a, b: (a * b).sum(), argnums=(0, 0))(_x(t), _y(t)),
    "argnums_tuple_with_str": lambda t: t.func.grad(sq, argnums=(0, "a"))(_x(t)),
    "int_input": lambda t: t.func.grad(lambda a: (a * 2).sum())(t.tensor([1, 2])),
    "tuple_output": lambda t: t.func.grad(lambda a: (a.sum(), 1))(_x(t)),
    "has_aux_not_tuple": lambda t: t.func.grad(lambda a: a.sum(), has_aux=True)(_x(t)),
    "has_aux_three": lambda t: t.func.grad(lambda a: (a.sum(), 1, 2), has_aux=True)(_x(t)),
    "float_input": lambda t: t.func.grad(sq)(3.0),
    "dict_with_int": lambda t: t.func.grad(lambda d: d["a"].sum())({"a": _x(t), "b": 1}),
    "no_positional": lambda t: t.func.grad(lambda: t.tensor(1.0))(),
    "captured_add_": lambda t: (lambda x: t.func.grad(lambda a: x.add_(a).sum())(_y(t)))(_x(t)),
    "captured_mul_": lambda t: (lambda x: t.func.grad(lambda a: (x.mul_(2) * a).sum())(_y(t)))(_x(t)),
    "captured_copy_": lambda t: (lambda x: t.func.grad(lambda a: x.copy_(a).sum())(_y(t)))(_x(t)),
    "captured_out": lambda t: (lambda x: t.func.grad(lambda a: t.sin(a, out=x).sum())(_y(t)))(_x(t)),
    "vjp_float_primal": lambda t: t.func.vjp(lambda a: a, 3.0),
    "vjp_wrong_cotangent_shape": lambda t: t.func.vjp(lambda a: a.sin(), _x(t))[1](t.ones(2)),
    "vjp_cotangent_structure": lambda t: t.func.vjp(lambda a: (a, a), _x(t))[1](t.ones(3)),
    "vjp_int_output": lambda t: t.func.vjp(lambda a: 3, _x(t)),
    "vjp_empty_output": lambda t: t.func.vjp(lambda a: (), _x(t)),
    "vjp_integer_tensor_output": lambda t: t.func.vjp(lambda a: a.long(), _x(t)),
    "vjp_has_aux_not_tuple": lambda t: t.func.vjp(lambda a: a, _x(t), has_aux=True),
    "vjp_aux_int": lambda t: t.func.vjp(lambda a: (a, 1), _x(t), has_aux=True),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values(name):
    same(VALUE_CASES[name])


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors(name):
    result = same(ERROR_CASES[name])
    assert isinstance(result, tuple) and result[0].endswith("Error"), result


def _probe(t, transform):
    """What the function sees inside grad / vjp: keys, repr, level, stack, TLS changes."""
    fz = t._C._functorch
    seen = {}
    inc0, exc0 = t._C._dispatch_tls_local_include_set(), t._C._dispatch_tls_local_exclude_set()

    def f(a):
        seen["keys"] = str(t._C._dispatch_keys(a))
        seen["repr"] = repr(a)
        seen["level"] = fz.maybe_get_level(a)
        seen["gradtracking"] = fz.is_gradtrackingtensor(a)
        seen["requires_grad"] = a.requires_grad
        seen["stack"] = [(i.key().name, i.level()) for i in fz.get_interpreter_stack()]
        seen["inc"] = str(t._C._dispatch_tls_local_include_set() - inc0)
        seen["exc"] = str(t._C._dispatch_tls_local_exclude_set() - exc0)
        return a.sum()

    transform(t, f)
    return seen


@pytest.mark.parametrize(
    "transform",
    [
        lambda t, f: t.func.grad(f)(t.arange(6.0).reshape(2, 3)),
        lambda t, f: t.func.vjp(f, t.arange(6.0).reshape(2, 3)),
        lambda t, f: t.func.grad(lambda a: t.func.grad(f)(a * 2))(t.tensor([1.0, 2.0])),
    ],
    ids=["grad", "vjp", "grad_grad"],
)
def test_inside_the_transform(transform):
    same(lambda t: _probe(t, transform))


def test_wrapper_escaping_the_transform_is_its_value():
    def program(t):
        box = []
        t.func.grad(lambda a: box.append(a) or a.sum())(_x(t))
        leaked = box[0]
        return leaked + 1, t._C._functorch.is_gradtrackingtensor(leaked)

    same(program)


def _requires_grad_inside(t, transform, call):
    def f(a):
        call(t, a)
        return a.sum()

    return transform(t, f)


_TRANSFORMS = {
    "grad": lambda t, f: t.func.grad(f)(_x(t)),
    "vjp": lambda t, f: t.func.vjp(f, _x(t))[0],
    "jvp": lambda t, f: t.func.jvp(f, (_x(t),), (t.ones(3),)),
    "vmap": lambda t, f: t.func.vmap(f)(t.ones(2, 3)),
}
_CALLS = {
    "input_requires_grad_": lambda t, a: a.requires_grad_(),
    "fresh_requires_grad_": lambda t, a: t.ones(2).requires_grad_(),
    "fresh_requires_grad_false": lambda t, a: t.ones(2).requires_grad_(False),
    "int_requires_grad_": lambda t, a: t.tensor([1, 2]).requires_grad_(),
    "bad_argument": lambda t, a: a.requires_grad_("x"),
    "setter": lambda t, a: setattr(t.ones(2), "requires_grad", True),
    "factory_kwarg": lambda t, a: t.ones(2, requires_grad=True),
    "autograd_functional": lambda t, a: t.autograd.functional.jacobian(lambda b: b * 2, a),
    "autograd_grad_no_graph": lambda t, a: t.autograd.grad((a * a).sum(), a),
}


@pytest.mark.parametrize("transform", sorted(_TRANSFORMS))
@pytest.mark.parametrize("call", sorted(_CALLS))
def test_requires_grad_inside_a_transform(transform, call):
    """requires_grad_() (and so autograd.functional) is refused inside every transform; the
    setter and the factories' requires_grad= are not (the transforms' own inputs are made
    differentiable with inplace_requires_grad allowed)."""
    same(lambda t: _requires_grad_inside(t, _TRANSFORMS[transform], _CALLS[call]))


def test_inplace_requires_grad_flag():
    def program(t):
        fz = t._C._functorch
        before = fz.get_inplace_requires_grad_allowed()
        fz.set_inplace_requires_grad_allowed(True)
        try:
            inside = t.func.grad(lambda a: a.requires_grad_().sum())(_x(t))
        finally:
            fz.set_inplace_requires_grad_allowed(False)
        return before, inside, fz.get_inplace_requires_grad_allowed()

    same(program)


def test_grad_level_queries():
    """torch._C._functorch's grad-level functions, used by hand."""

    def program(t):
        fz = t._C._functorch
        x = t.tensor([1.0, 2.0])
        level = fz._grad_increment_nesting()
        try:
            w = fz._wrap_for_grad(x, level)
            seen = [level, fz.is_gradtrackingtensor(w), fz.maybe_get_level(w),
                    fz.is_dead_tensor_wrapper(w), fz._unwrap_for_grad(w, level) is x]  # fmt: skip
        finally:
            seen.append(fz._grad_decrement_nesting())
        seen += [fz.is_dead_tensor_wrapper(w), fz.maybe_current_level()]
        level = fz._jvp_increment_nesting()
        seen.append([(i.key().name, i.level()) for i in fz.get_interpreter_stack()])
        seen.append(fz._jvp_decrement_nesting())
        return seen

    same(program)
