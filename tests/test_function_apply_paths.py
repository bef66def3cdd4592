"""autograd.Function.apply on and beside its usual path, against PyTorch 2.13.

``apply`` with positional arguments and a forward(ctx, ...) takes a single pass
over the inputs, and an output that is one fresh floating tensor skips the
general output processing (autograd/function.py, autograd/custom_function.py).
Each program here sits on one side of those conditions (saved tensors of every
kind, an output that is an input or a view or an integer tensor, grad mode off,
keyword arguments, setup_context) and must behave exactly as in torch.
"""

from __future__ import annotations

import pytest
from oracle import torch

import ember


def _forward(lib, kind: str):
    def forward(ctx, x, scale=2.0):
        if kind == "fresh":
            return x * scale
        if kind == "save input":
            ctx.save_for_backward(x)
            return x * scale
        if kind == "save output":
            out = x * scale
            ctx.save_for_backward(out, None)
            return out
        if kind == "save number":
            ctx.save_for_backward(x, 3)
            return x * scale
        if kind == "input":
            return x
        if kind == "view":
            return x[:1]
        if kind == "integer":
            return (x * scale).long()
        if kind == "non-differentiable":
            out = x * scale
            ctx.mark_non_differentiable(out)
            return out
        raise AssertionError(kind)

    return forward


KINDS = [
    "fresh",
    "save input",
    "save output",
    "save number",
    "input",
    "view",
    "integer",
    "non-differentiable",
]


def run(name: str, kind: str, call: str) -> list:
    lib = torch if name == "torch" else ember

    class Fn(lib.autograd.Function):
        forward = staticmethod(_forward(lib, kind))

        @staticmethod
        def backward(ctx, grad):
            saved = [None if t is None else t.tolist() for t in ctx.saved_tensors]
            rows.append(("backward", saved, list(ctx.needs_input_grad)))
            return grad * 2, None

    rows: list = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    try:
        if call == "positional":
            y = Fn.apply(x, 3.0)
        elif call == "keyword":
            y = Fn.apply(x, scale=3.0)
        else:  # grad mode off
            with lib.no_grad():
                y = Fn.apply(x, 3.0)
    except (RuntimeError, TypeError) as error:
        return [type(error).__name__, str(error)]
    rows.append(
        (
            type(y.grad_fn).__name__ if y.grad_fn is not None else None,
            y.requires_grad,
            y.is_leaf,
            y is x,
            y._base is x,
            y.dtype == lib.float32,
            y.tolist(),
        )
    )
    if y.requires_grad:
        try:
            y.sum().backward()
        except RuntimeError as error:
            rows.append(str(error))
        rows.append(None if x.grad is None else x.grad.tolist())
    return rows


@pytest.mark.parametrize("call", ["positional", "keyword", "no_grad"])
@pytest.mark.parametrize("kind", KINDS)
def test_apply_matches_torch(kind, call):
    assert run("ember", kind, call) == run("torch", kind, call)


def test_a_tensor_given_twice_and_a_number():
    def program(lib):
        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                ctx.save_for_backward(a, b)
                return a * b * k

            @staticmethod
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                return grad * b, grad * a, None

        x = lib.tensor([1.0, 3.0], requires_grad=True)
        y = Mul.apply(x, x, 2)
        y.sum().backward()
        return [type(y.grad_fn).__name__, y.tolist(), x.grad.tolist()]

    assert program(ember) == program(torch)


def test_the_apply_node_is_built_as_its_constructor_builds_it():
    """BackwardCFunction._for_apply (apply's one-allocation node) sets exactly the fields
    ``__init__`` (and Node's) set, with the inputs' flags, and takes the next sequence
    number."""

    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    backward_cls = Double._backward_cls
    made = backward_cls()
    made._is_variable_input = [True, False]
    made.needs_input_grad = (True, False)
    fast = backward_cls._for_apply([True, False], (True, False))
    assert type(fast) is backward_cls
    assert fast._seq == made._seq + 1
    expected, got = dict(vars(made)), dict(vars(fast))
    del expected["_seq"], got["_seq"]
    assert got == expected
