"""AccumulateGrad against torch: which gradients are stolen (kept, detached) and which are
copied under the gradient layout contract, seen through the operators a dispatch mode
records in backward, the strides `.grad` gets, aliasing, and the order leaves accumulate."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from autograd_support import arg_shapes, op_recorder
from oracle import torch

import ember


def _backward_ops(lib, build):
    """(ops a mode sees while `backward` runs, the leaves) for the graph `build(lib)` makes."""
    loss, leaves, gradient = build(lib)
    with op_recorder(lib) as mode:
        loss.backward(gradient)
    return mode.ops, leaves


def _mm_and_bias(lib):
    x = lib.tensor(np.arange(6, dtype=np.float32).reshape(3, 2), requires_grad=True)
    w = lib.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    b = lib.tensor([0.25, -1.0], requires_grad=True)
    return (x @ w + b).sum(), [x, w, b], None


def _user_gradient_into_leaf(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return x, [x], lib.ones(3)


def _transposed_leaf(lib):
    w = lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)).t().requires_grad_()
    return (w * 2).sum(), [w], None


def _expanded_gradient(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return x.sum(), [x], None  # SumBackward0 hands over an expanded (stride 0) gradient


def _gradient_used_twice(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 4.0], requires_grad=True)
    return (x + y).sum(), [x, y], None  # AddBackward0 gives both the same tensor


CASES = [_mm_and_bias, _user_gradient_into_leaf, _transposed_leaf, _expanded_gradient,
         _gradient_used_twice]  # fmt: skip


@pytest.mark.parametrize("build", CASES, ids=lambda f: f.__name__.strip("_"))
def test_accumulate_grad_steals_or_copies_as_torch(build):
    ours, our_leaves = _backward_ops(ember, build)
    theirs, their_leaves = _backward_ops(torch, build)
    assert ours == theirs
    for mine, ref in zip(our_leaves, their_leaves):
        assert mine.grad.stride() == ref.grad.stride()
        np.testing.assert_array_equal(mine.grad.numpy(), ref.grad.numpy())


def test_a_gradient_the_caller_still_holds_is_copied():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    gradient = ember.ones(3)
    x.backward(gradient)
    gradient.mul_(5)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    assert x.grad.data_ptr() != gradient.data_ptr()


def test_gradients_shared_by_two_leaves_do_not_alias():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = ember.tensor([3.0, 4.0], requires_grad=True)
    (x + y).sum().backward()
    assert x.grad.data_ptr() != y.grad.data_ptr()
    x.grad.add_(1)
    assert y.grad.tolist() == [1.0, 1.0]


def test_a_stolen_gradient_is_detached_and_accumulates_in_place():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    first = x.grad
    assert not first.requires_grad and first.grad_fn is None
    (x * 3).sum().backward()
    assert x.grad is first and first.tolist() == [6.0, 6.0]


def test_leaves_accumulate_as_soon_as_their_gradient_is_ready():
    """AccumulateGrad's sequence number is UINT64_MAX, so a ready one runs first."""
    x = ember.tensor([1.0], requires_grad=True)
    assert (x * 1).grad_fn.next_functions[0][0]._sequence_nr() == 2**64 - 1
    order = []
    a = ember.tensor([1.0], requires_grad=True)
    b = ember.tensor([2.0], requires_grad=True)
    a.register_post_accumulate_grad_hook(lambda t: order.append("a"))
    b.register_post_accumulate_grad_hook(lambda t: order.append("b"))
    ((a * 2) * b).sum().backward()
    assert order == ["b", "a"]


def test_the_implicit_root_gradient_is_ones_like_with_torchs_arguments():
    """backward() of a scalar makes its gradient as torch.ones_like(out, memory_format=
    torch.preserve_format): a mode sees the same call, keyword arguments included."""
    seen = {}
    for lib in (ember, torch):
        base = importlib.import_module(f"{lib.__name__}.utils._python_dispatch")

        class Mode(base.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None, lib=lib):
                if "ones_like" in str(func):
                    seen[lib.__name__] = (str(func), {k: repr(v) for k, v in kwargs.items()})
                return func(*args, **(kwargs or {}))

        x = lib.ones(2, requires_grad=True)
        loss = (x * 2).sum()
        with Mode():
            loss.backward()
    func, kwargs = seen["ember"]
    expected_func, expected = seen["torch"]
    assert func == expected_func
    assert {k: v.replace("ember.", "torch.") for k, v in kwargs.items()} == expected


@pytest.mark.parametrize(
    "build",
    [
        lambda lib, x, y, z: x.mm(y),  # MmBackward0: mat2's gradient first
        lambda lib, x, y, z: x * z,  # MulBackward0: other's first
        lambda lib, x, y, z: x - z,
        lambda lib, x, y, z: (x.mm(y) + 1).relu().mm(y.t()),
    ],
    ids=["mm", "mul", "sub", "chain"],
)
def test_backward_computes_input_gradients_in_torchs_order(build):
    """PyTorch's generated nodes compute their inputs' gradients in the order of the
    inputs' sorted names; a mode sees the same operators, with the same shapes, in order."""
    seen = []
    for lib in (ember, torch):
        x = lib.ones(2, 3, requires_grad=True)
        y = lib.ones(3, 4, requires_grad=True)
        z = lib.ones(2, 3, requires_grad=True)
        loss = build(lib, x, y, z).sum()
        with op_recorder(lib, arg_shapes) as mode:
            loss.backward()
        seen.append([op for op in mode.ops if op[0] != "aten.detach.default"])
    assert seen[0] == seen[1]


@pytest.mark.parametrize(
    "build",
    [
        lambda lib, a, b, c, d: (a.mm(b) + 1).relu().mm(b.t()),
        lambda lib, a, b, c, d: a.mm(b) * 2 + c.mm(d),
        lambda lib, a, b, c, d: (a.mm(d) + c.mm(b)).exp(),
        lambda lib, a, b, c, d: a.mm(b).mm(d.t()).mm(c.t().mm(a).t()),
    ],
)
def test_ready_leaves_accumulate_in_torchs_order(build):
    """All AccumulateGrad nodes share one sequence number; among ready leaves the engine's
    heap decides, as std::priority_queue does in PyTorch (Note [The ready queue])."""
    orders = []
    for lib in (ember, torch):
        order = []
        leaves = [
            lib.ones(2, 3, requires_grad=True),
            lib.ones(3, 2, requires_grad=True),
            lib.ones(2, 3, requires_grad=True),
            lib.ones(3, 2, requires_grad=True),
        ]
        for name, leaf in zip("abcd", leaves):
            leaf.register_post_accumulate_grad_hook(lambda t, n=name, seen=order: seen.append(n))
        build(lib, *leaves).sum().backward()
        orders.append(order)
    assert orders[0] == orders[1]
