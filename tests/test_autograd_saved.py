"""Saved outputs (Note [Saved outputs]): what a dispatch mode sees when a node saves and
unpacks its own output, that forward-only graphs leave no reference cycles, and that an
unpacked output is a fresh tensor on the same data whose grad_fn is the node."""

from __future__ import annotations

import numpy as np
import pytest
from autograd_support import arg_shapes, cyclic_garbage, op_recorder
from oracle import torch

import ember


def _recorded(lib, program):
    run = program(lib)  # tensors are made outside the mode (ember has no lift_fresh)
    with op_recorder(lib, lambda args: str(arg_shapes(args)).replace("torch.", "ember.")) as mode:
        run()
    return mode.ops


def _training_step(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((6, 4)).astype(np.float32))
    w1 = lib.tensor(rng.standard_normal((4, 5)).astype(np.float32), requires_grad=True)
    w2 = lib.tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    y = lib.tensor([0, 1, 2, 0, 1, 2])
    return lambda: lib.nn.functional.cross_entropy(x.mm(w1).relu().mm(w2), y).backward()


def _double_backward(lib):
    x = lib.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    weights = lib.tensor([[1.0, -2.0, 0.5]])

    def run():
        (g,) = lib.autograd.grad((lib.log_softmax(x, 1) * weights).sum(), x, create_graph=True)
        (g * g).sum().backward()

    return run


@pytest.mark.parametrize("program", [_training_step, _double_backward])
def test_a_mode_sees_the_detaches_of_saved_outputs_as_in_torch(program):
    """relu and log_softmax save their result: PyTorch detaches it through the mode when it
    saves it (forward) and again when it unpacks it (backward)."""
    ours = _recorded(ember, program)
    theirs = _recorded(torch, program)
    assert ours == theirs
    assert ("aten.detach.default", "[(6, 5)]") in ours or program is _double_backward


def test_forward_only_graphs_leave_no_reference_cycles():
    w = ember.randn(4, 3, requires_grad=True)
    x = ember.randn(5, 4)
    # never backwarded: reference counting alone must free the graph
    assert cyclic_garbage(lambda: ember.log_softmax(x.mm(w).relu(), 1).sum()) == 0


def test_an_unpacked_output_is_a_fresh_tensor_on_the_same_data():
    x = ember.tensor([-1.0, 2.0], requires_grad=True)
    y = x.relu()
    saved = y.grad_fn._raw_saved_result
    unpacked = saved.unpack()
    assert unpacked is not y and unpacked.grad_fn is y.grad_fn and unpacked.requires_grad
    assert np.shares_memory(unpacked.detach().numpy(), y.detach().numpy())
    assert unpacked._version == y._version  # one version counter
    with ember.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="which is output 0 of Relu, is at version 1"):
        saved.unpack()


def test_non_differentiable_outputs_get_no_history():
    """nll_loss_forward's total_weight is not differentiable: no grad_fn, as in torch."""
    results = []
    for lib in (ember, torch):
        x = lib.ones(3, 4, requires_grad=True)
        output, total_weight = lib.ops.aten.nll_loss_forward(
            x, lib.tensor([0, 1, 2]), None, 1, -100
        )
        results.append((output.requires_grad, total_weight.requires_grad, total_weight.grad_fn))
    assert results[0] == results[1] == (True, False, None)


def _describe_saved(value):
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(_describe_saved(v) for v in value)
    grad_fn = value.grad_fn
    return (
        type(value).__name__,
        [f"{v:.5g}" for v in value.tolist()],
        value.requires_grad,
        value.is_leaf,
        None if grad_fn is None else type(grad_fn).__name__,
    )


SAVED_GETTERS = {
    "mul": (lambda lib, x, y: x * y, ["_saved_self", "_saved_other"]),
    "mul, other needs no grad": (lambda lib, x, y: x * y.detach(), ["_saved_self", "_saved_other"]),
    "exp": (lambda lib, x, y: x.exp(), ["_saved_result"]),
    "relu of a product": (lambda lib, x, y: (x * y).relu(), ["_saved_result"]),
    "sin": (lambda lib, x, y: x.sin(), ["_saved_self"]),
    "index": (lambda lib, x, y: x[lib.tensor([0, 2])], ["_saved_indices"]),
    "pow": (lambda lib, x, y: x.pow(y), ["_saved_self", "_saved_exponent", "_saved_result"]),
}


@pytest.mark.parametrize("case", sorted(SAVED_GETTERS))
def test_a_nodes_saved_getters_give_tensors_as_torch(case):
    # python_functions.cpp's getters: `_saved_<name>` unpacks (a tuple for a list) and
    # `_raw_saved_<name>` is the saved variable; after backward freed them, PyTorch's error
    forward, names = SAVED_GETTERS[case]

    def program(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = lib.tensor([2.0, 0.5, -1.0], requires_grad=True)
        node = forward(lib, x, y).grad_fn
        seen = [(name, _describe_saved(getattr(node, name))) for name in names]
        seen += [(name, hasattr(node, "_raw" + name)) for name in names]
        lib.autograd.backward(forward(lib, x, y).sum())  # another graph: this one stays
        seen.append(_describe_saved(getattr(node, names[0])))
        return seen

    assert program(ember) == program(torch)


def test_a_saved_tensor_read_after_backward_raises_as_torch():
    def program(lib):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = x.exp()
        y.sum().backward()
        try:
            _ = y.grad_fn._saved_result
        except RuntimeError as error:
            return str(error)

    assert program(ember) == program(torch)


def test_a_saved_wrapper_input_is_the_wrapper_itself():
    # PyTorch's test_basic: the saved self of a wrapper subclass compares equal to it and
    # shares its version counter
    def program(lib):
        class Wrapper(lib.Tensor):
            @staticmethod
            def __new__(cls, elem, requires_grad=False):
                r = lib.Tensor._make_wrapper_subclass(
                    cls, elem.size(), dtype=elem.dtype, requires_grad=requires_grad
                )
                r.elem = elem
                return r

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                def unwrap(e):
                    return e.elem if isinstance(e, Wrapper) else e

                out = func(*[unwrap(a) for a in args], **(kwargs or {}))
                return Wrapper(out) if isinstance(out, lib.Tensor) else out

        x = Wrapper(lib.tensor([3.0]), requires_grad=True)
        saved = (x * x).grad_fn._saved_self
        seen = [type(saved).__name__, saved is x, saved._version == x._version]
        with lib.no_grad():
            x.add_(2)
        seen += [saved._version == x._version, saved.elem.tolist(), x.elem.tolist()]
        return seen

    assert program(ember) == program(torch)
