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
    saved = y.grad_fn._saved_result
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
