"""The arguments of backward / autograd.grad, the grad and requires_grad setters, and misuse
of a custom autograd.Function, against torch: each program runs under both libraries and
must raise the same exception (type and message) or give the same result (values, dtype,
shape, strides, requires_grad, grad_fn name)."""

from __future__ import annotations

import collections

import pytest
from autograd_support import same_outcome as same

import ember


def _leaf(t, n=3):
    return t.tensor([1.5, 0.0, 3.0][:n], requires_grad=True)


def _grad(t, inputs, **kwargs):
    w = _leaf(t)
    inputs = w if inputs == "w" else inputs
    return t.autograd.grad((w * w).sum(), inputs, **kwargs)


def _backward(t, **kwargs):
    w = _leaf(t)
    (w * 2).sum().backward(**kwargs)
    return w.grad


# -- autograd.grad and backward: inputs, outputs, flags -----------------------------------

GRAD_CASES = {
    "inputs_empty_list": lambda t: _grad(t, []),
    "inputs_empty_dict": lambda t: _grad(t, {}),
    "inputs_none": lambda t: _grad(t, None),
    "inputs_str": lambda t: _grad(t, "a"),
    "inputs_bytes": lambda t: _grad(t, b"x"),
    "inputs_int_in_list": lambda t: _grad(t, (1, "a")),
    "inputs_object": lambda t: _grad(t, object()),
    "inputs_dict": lambda t: (lambda w: t.autograd.grad((w * 2).sum(), {"a": w}))(_leaf(t)),
    "inputs_ordered_dict": lambda t: _grad(t, collections.OrderedDict(a=_leaf(t))),
    "inputs_empty_with_wrong_grad": lambda t: _grad(t, [], grad_outputs=t.ones(2)),
    "inputs_object_with_wrong_grad": lambda t: _grad(t, object(), grad_outputs=t.ones(2)),
    "outputs_str": lambda t: t.autograd.grad("a", _leaf(t)),
    "outputs_int": lambda t: t.autograd.grad(3, _leaf(t)),
    "outputs_with_int": lambda t: (lambda w: t.autograd.grad([(w * 2).sum(), 3], w))(_leaf(t)),
    "allow_unused_str": lambda t: _grad(t, "w", allow_unused="x"),
    "allow_unused_256": lambda t: _grad(t, "w", allow_unused=256),
    "allow_unused_negative": lambda t: _grad(t, "w", allow_unused=-1),
    "allow_unused_huge": lambda t: _grad(t, "w", allow_unused=2**70),
    "allow_unused_float_tensor": lambda t: _grad(t, "w", allow_unused=t.tensor(1.0)),
    "allow_unused_int_tensor": lambda t: _grad(t, "w", allow_unused=t.tensor(1)),
    "retain_graph_float": lambda t: _grad(t, "w", retain_graph=1.5),
    "create_graph_none": lambda t: _grad(t, "w", create_graph=None),
    "create_graph_str_unused_input": lambda t: _grad(t, [t.ones(3)], create_graph="x"),
    "create_graph_int": lambda t: _grad(t, "w", retain_graph=None, create_graph=3),
    "grads_index_compares": lambda t: (lambda w: t.autograd.grad(
        [(w * 2).sum(), (w * 3).sum()], w, grad_outputs=[t.ones(()), t.ones(2)]))(_leaf(t)),
    "batched_0d_gradient": lambda t: _grad(t, "w", grad_outputs=t.ones(()), is_grads_batched=True),
    "batched_empty_batch": lambda t: (lambda w: t.autograd.grad(
        w * 2, w, grad_outputs=t.ones(0, 3), is_grads_batched=True))(_leaf(t)),
    "batched_sizes_differ": lambda t: (lambda w: t.autograd.grad(
        [w * 2, w * 3], w, grad_outputs=[t.ones(2, 3), t.ones(4, 3)],
        is_grads_batched=True))(_leaf(t)),
    "batched_none_gradient": lambda t: t.autograd.grad(t.ones(()), _leaf(t), is_grads_batched=True),
    "batched_shape_mismatch": lambda t: (lambda w: t.autograd.grad(
        w * 2, w, grad_outputs=t.ones(2, 2, 3), is_grads_batched=True))(_leaf(t)),
    "batched_shape_mismatch_1d": lambda t: (lambda w: t.autograd.grad(
        w * 2, w, grad_outputs=t.ones(2), is_grads_batched=True))(_leaf(t)),
    "unused_input": lambda t: _grad(t, [_leaf(t)]),
    "unused_materialized": lambda t: (lambda w: t.autograd.grad(
        (w * 2).sum(), [w, _leaf(t)], materialize_grads=True))(_leaf(t)),
    "input_not_requiring_grad": lambda t: _grad(t, [t.ones(3)]),
}  # fmt: skip

BACKWARD_CASES = {
    "inputs_not_requiring_grad": lambda t: _backward(t, inputs=[t.ones(3)]),
    "inputs_detached": lambda t: (lambda w: (w * 2).sum().backward(inputs=[w.detach()]))(_leaf(t)),
    "inputs_str_in_list": lambda t: _backward(t, inputs=["a"]),
    "inputs_str": lambda t: _backward(t, inputs="a"),
    "inputs_int": lambda t: _backward(t, inputs=3),
    "inputs_empty_dict": lambda t: _backward(t, inputs={}),
    "inputs_dict": lambda t: (lambda w: ((w * 2).sum().backward(inputs={"a": w}), w.grad))(
        _leaf(t)
    ),
    "inputs_ordered_dict": lambda t: _backward(t, inputs=collections.OrderedDict(a=_leaf(t))),
    "retain_graph_str": lambda t: _backward(t, gradient=t.ones(()), retain_graph="x"),
    "create_graph_str": lambda t: _backward(t, gradient=t.ones(()), create_graph="x"),
    "tensors_str": lambda t: t.autograd.backward("a"),
    "tensors_int": lambda t: t.autograd.backward(3),
    "tensors_none": lambda t: t.autograd.backward(None),
    "tensors_with_str": lambda t: t.autograd.backward([(_leaf(t) * 2).sum(), "a"]),
    "grad_tensors_and_grad_variables": lambda t: t.autograd.backward(
        (_leaf(t) * 2).sum(), grad_tensors=t.ones(()), grad_variables=t.ones(())
    ),
    "non_leaf_input_retains_grad": lambda t: _non_leaf_input(t),
    "non_leaf_input_retained_before": lambda t: _non_leaf_input(t, retain=True),
    "failed_input_still_retains": lambda t: _failed_input_retains(t),
}


def _non_leaf_input(t, retain=False):
    y = _leaf(t) * 2
    if retain:
        y.retain_grad()
    y.sum().backward(inputs=[y])
    return y.retains_grad, y.grad


def _failed_input_retains(t):
    y = _leaf(t) * 2
    try:
        y.sum().backward(inputs=[y, "a"])
    except RuntimeError as error:
        return y.retains_grad, str(error)
    return None


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_autograd_grad_arguments_as_torch(name):
    same(GRAD_CASES[name])


@pytest.mark.parametrize("name", sorted(BACKWARD_CASES))
def test_backward_arguments_as_torch(name):
    same(BACKWARD_CASES[name])


def test_batched_gradients_are_refused_cleanly():
    """is_grads_batched needs torch's vmap: ember makes its checks, then refuses."""
    w = _leaf(ember)
    with pytest.raises(NotImplementedError, match="vmap"):
        ember.autograd.grad(w * 2, w, grad_outputs=ember.ones(2, 3), is_grads_batched=True)


# -- the grad and requires_grad setters ----------------------------------------------------


def _set_grad(t, value, tensor=None):
    tensor = _leaf(t) if tensor is None else tensor
    tensor.grad = value(t, tensor) if callable(value) else value
    return tensor.grad


SETTER_CASES = {
    "grad_size": lambda t: _set_grad(t, t.ones(2)),
    "grad_size_2d": lambda t: _set_grad(t, t.ones(3, 1)),
    "grad_size_0d": lambda t: _set_grad(t, t.ones(())),
    "grad_int64": lambda t: _set_grad(t, t.ones(3, dtype=t.int64)),
    "grad_float64": lambda t: _set_grad(t, t.ones(3, dtype=t.float64)),
    "grad_complex": lambda t: _set_grad(t, t.ones(3, dtype=t.complex64)),
    "grad_bool_on_bfloat16": lambda t: _set_grad(
        t, t.ones(3, dtype=t.bool), t.ones(3, dtype=t.bfloat16)
    ),
    "grad_half_on_int": lambda t: _set_grad(t, t.ones(3, dtype=t.float16), t.ones(3).long()),
    "grad_str": lambda t: _set_grad(t, "a"),
    "grad_int": lambda t: _set_grad(t, 3),
    "grad_meta": lambda t: _set_grad(t, t.ones(3, device="meta")),
    "grad_cpu_on_meta": lambda t: _set_grad(
        t, t.ones(()), t.ones(3, device="meta", requires_grad=True)
    ),
    "grad_dtype_before_device": lambda t: _set_grad(t, t.ones(3, dtype=t.float64, device="meta")),
    "grad_itself": lambda t: _set_grad(t, lambda lib, w: w),
    "grad_requiring_grad": lambda t: _set_grad(t, lambda lib, w: _leaf(lib), t.ones(3)),
    "grad_none": lambda t: _set_grad(t, None),
    "requires_grad_int": lambda t: setattr(t.ones(3, dtype=t.int64), "requires_grad", True),
    "requires_grad_str": lambda t: setattr(_leaf(t), "requires_grad", "x"),
    "requires_grad_none": lambda t: setattr(_leaf(t), "requires_grad", None),
    "requires_grad_1": lambda t: setattr(t.ones(3), "requires_grad", 1),
    "requires_grad__str": lambda t: t.ones(2).requires_grad_("x"),
    "requires_grad__kw": lambda t: t.ones(2).requires_grad_(requires_grad=False),
    "requires_grad__bool_tensor": lambda t: t.ones(3, dtype=t.bool).requires_grad_(),
}


@pytest.mark.parametrize("name", sorted(SETTER_CASES))
def test_grad_and_requires_grad_setters_as_torch(name):
    same(SETTER_CASES[name])


def _data_version(t, touch_first):
    w = _leaf(t)
    if touch_first:
        _ = w._version  # the counter exists before .data is taken
    w.data.add_(1)
    return w, w._version, w.data._version


@pytest.mark.parametrize("touch_first", [False, True])
def test_data_has_its_own_version_counter(touch_first):
    same(lambda t: _data_version(t, touch_first))
