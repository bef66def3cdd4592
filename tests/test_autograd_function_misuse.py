"""Misuse of a custom autograd.Function against torch: what forward returns, saves, marks
dirty or non-differentiable; what backward returns; apply's keyword arguments; views and
inputs returned from forward. Each program runs under both libraries and must raise the
same exception (type and message) or give the same result (autograd_support.plain)."""

from __future__ import annotations

import pytest
from autograd_support import same_outcome


def _fn(t, forward, backward=None, setup_context=None):
    """A Function subclass of library `t` named F with the given static methods."""
    body = {"forward": staticmethod(forward)}
    if backward is not None:
        body["backward"] = staticmethod(backward)
    if setup_context is not None:
        body["setup_context"] = staticmethod(setup_context)
    return type("F", (t.autograd.Function,), body)


def _leaf(t):
    return t.tensor([1.5, 0.0, 3.0], requires_grad=True)


def _backward_of(t, backward, forward=lambda ctx, x: x * 2):
    w = _leaf(t)
    _fn(t, forward, backward).apply(w).sum().backward()
    return w.grad


def _save(*items):
    def forward(ctx, x):
        ctx.save_for_backward(x, *items)
        return x * 2

    return forward


def _mark(method, *extra, returned=lambda x: x * 2):
    def forward(ctx, x):
        getattr(ctx, method)(x, *extra)
        return returned(x)

    return forward


def _identity(ctx, g):
    return g


def _version_after_failure(t, forward, make_input):
    x = make_input(t)
    try:
        _fn(t, forward, _identity).apply(x)
    except RuntimeError as error:
        return str(error), x._version
    return None


CASES = {
    # what backward returns
    "backward_returns_str": lambda t: _backward_of(t, lambda ctx, g: "a"),
    "backward_returns_list": lambda t: _backward_of(t, lambda ctx, g: [g]),
    "backward_returns_int": lambda t: _backward_of(t, lambda ctx, g: 3),
    "backward_returns_too_many": lambda t: _backward_of(t, lambda ctx, g: (g, g)),
    "backward_returns_extra_none": lambda t: _backward_of(t, lambda ctx, g: (g, None)),
    "backward_returns_none": lambda t: _backward_of(t, lambda ctx, g: None),
    "backward_returns_wrong_shape": lambda t: _backward_of(t, lambda ctx, g: g[:2]),
    "backward_grad_for_non_tensor": lambda t: (
        lambda w: _fn(t, lambda ctx, x, n: x * n, lambda ctx, g: (g, g)).apply(w, 2)
        .sum().backward())(_leaf(t)),
    "backward_missing": lambda t: (lambda w: _fn(t, lambda ctx, x: x * 2).apply(w)
                                   .sum().backward())(_leaf(t)),
    # gradients handed to backward for outputs that are no differentiable tensors
    "grad_of_non_tensor_output": lambda t: (lambda w: (
        lambda r: (r[0].sum().backward(), r[1], w.grad))(
        _fn(t, lambda ctx, x: (x * 2, 3), lambda ctx, g, h: g + (h is None) * 10).apply(w)))(
        _leaf(t)),
    "grad_of_integer_output": lambda t: (lambda w: (
        lambda r: (r[0].sum().backward(), w.grad))(
        _fn(t, lambda ctx, x: (x * 2, x.long()),
            lambda ctx, g, h: g + (h is None) * 10 + (h is not None and h.sum() == 0) * 100)
        .apply(w)))(_leaf(t)),
    # save_for_backward, mark_dirty, mark_non_differentiable with non-tensors
    "save_int": lambda t: _fn(t, _save(3), _identity).apply(_leaf(t)),
    "save_int_not_recording": lambda t: _fn(t, _save(3), _identity).apply(t.ones(3)),
    "save_none": lambda t: _backward_of(
        t, lambda ctx, g: g * (ctx.saved_tensors[1] is None), _save(None)),
    "save_in_setup_context": lambda t: _fn(
        t, lambda x: x * 2, _identity,
        lambda ctx, inputs, output: ctx.save_for_backward(3)).apply(_leaf(t)),
    "mark_dirty_int": lambda t: _fn(t, _mark("mark_dirty", 3), _identity).apply(_leaf(t) * 1),
    "mark_dirty_int_bumps_first": lambda t: _version_after_failure(
        t, _mark("mark_dirty", 3, returned=lambda x: x), lambda lib: _leaf(lib) * 1),
    "mark_dirty_not_returned": lambda t: _fn(t, _mark("mark_dirty"), _identity).apply(
        _leaf(t) * 1),
    "mark_dirty_not_returned_bumps": lambda t: _version_after_failure(
        t, _mark("mark_dirty"), lambda lib: lib.ones(3)),
    "mark_non_differentiable_int": lambda t: _fn(
        t, _mark("mark_non_differentiable", 3), _identity).apply(_leaf(t)),
    "mark_non_differentiable_int_not_recording": lambda t: _fn(
        t, _mark("mark_non_differentiable", 3), _identity).apply(t.ones(3)),
    "materialize_grads_str": lambda t: _fn(
        t, lambda ctx, x: (setattr(ctx, "materialize_grads", "x"), x * 2)[1],
        _identity).apply(_leaf(t)),
    "set_materialize_grads_str": lambda t: _fn(
        t, lambda ctx, x: (ctx.set_materialize_grads("x"), x * 2)[1], _identity).apply(_leaf(t)),
    # outputs: inputs returned as they are, views, fresh tensors that require grad
    "input_returned_not_recording": lambda t: (lambda x: (
        lambda y: (y is x, y._base is x))(_fn(t, lambda ctx, v: v, _identity).apply(x)))(
        t.ones(3)),
    "fresh_requiring_output_not_recording": lambda t: (lambda y: (y.requires_grad, y.grad_fn))(
        _fn(t, lambda ctx, x: t.ones(3, requires_grad=True), _identity).apply(t.ones(3))),
    "input_returned_modified_inplace": lambda t: _fn(
        t, lambda ctx, x: x, _identity).apply(_leaf(t)).mul_(2),
    "view_returned_modified_inplace": lambda t: _fn(
        t, lambda ctx, x: x[:2], _identity).apply(_leaf(t) * 1).mul_(2),
    "views_returned_modified_inplace": lambda t: _fn(
        t, lambda ctx, x: (x[:2], x[1:]), lambda ctx, g, h: None).apply(_leaf(t) * 1)[0].mul_(2),
    "dirty_view_with_two_outputs": lambda t: _fn(
        t, _mark("mark_dirty", returned=lambda x: (x.add_(1), 3)[0:2]),
        lambda ctx, g, h: g).apply((_leaf(t) * 1)[:2]),
    "dirty_input_clears_grad": lambda t: _dirty_clears_grad(t),
    "returned_input_saved_in_setup_context": lambda t: _fn(
        t, lambda x: x, _identity,
        lambda ctx, inputs, output: ctx.save_for_backward(output)).apply(_leaf(t)),
    # instances (legacy functions)
    "instance": lambda t: callable(_fn(t, lambda ctx, x: x, _identity)()),
    "instance_called": lambda t: _fn(t, lambda ctx, x: x, _identity)()(_leaf(t)),
    # keyword arguments of apply
    "kwarg_input": lambda t: _fn(t, lambda ctx, x: x * 2, _identity).apply(x=_leaf(t)),
    "kwarg_unexpected": lambda t: _fn(
        t, lambda ctx, x, n=2: x * n, _identity).apply(_leaf(t), n=3, m=1),
    "kwarg_twice": lambda t: _fn(t, lambda ctx, x, n=2: x * n, _identity).apply(_leaf(t), x=1),
    "kwarg_gap": lambda t: _fn(
        t, lambda ctx, x, n=2, m=3: x * n, _identity).apply(_leaf(t), m=3),
    "kwarg_only": lambda t: _fn(t, lambda ctx, x, n=2: x * n, _identity).apply(n=3),
    "setup_context_defaults": lambda t: (lambda w: (
        _fn(t, lambda x, n=2: x * n, lambda ctx, g: (g * ctx.n, None),
            lambda ctx, inputs, output: setattr(ctx, "n", inputs[1])).apply(w).sum().backward(),
        w.grad))(_leaf(t)),
    "setup_context_too_many": lambda t: _fn(
        t, lambda x, n=2: x * n, _identity, lambda ctx, inputs, output: None).apply(
        _leaf(t), 1, 2),
}  # fmt: skip


def _dirty_clears_grad(t):
    v = _leaf(t) * 1
    v.retain_grad()
    (v * 1).sum().backward(retain_graph=True)

    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    a = _fn(t, forward, _identity).apply(v)
    return a is v, v.grad, v._version


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_misuse_as_torch(name):
    same_outcome(CASES[name])
