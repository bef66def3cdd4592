"""A __torch_dispatch__ handler that returns None inside a backward formula, against torch.

PyTorch turns the None into an undefined tensor, and the formula's next operator refuses it:
"Expected a proper Tensor but got None ... for argument #0 'self'". ember's formulas are
Python, and give the same error (Note [Undefined tensors in formulas]); a None from a
handler called by user code stays None.
"""

from __future__ import annotations

import pytest
from oracle import torch

import ember


def _subclass(lib, none_for: str):
    tree_map = lib.utils._pytree.tree_map

    class SubclassWithNone(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(
                cls, elem.size(), dtype=elem.dtype, device=elem.device,
                requires_grad=elem.requires_grad,
            )  # fmt: skip
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(e):
                return e.elem if isinstance(e, SubclassWithNone) else e

            def wrap(e):
                return SubclassWithNone(e) if isinstance(e, lib.Tensor) else e

            rs = tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))
            return None if func.overloadpacket.__name__ == none_for else rs

    return SubclassWithNone


def _outcome(lib, op: str, none_for: str):
    cls = _subclass(lib, none_for)
    x = cls(lib.tensor([0.25, 0.5]))
    plain = [type(x * 2).__name__, x + 2 if none_for == "add" else "-"]
    x.requires_grad_()
    out = getattr(x, op)().sum()
    try:
        out.backward()
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return plain, type(error).__name__, str(error)
    return plain, "no error", ""


@pytest.mark.parametrize(("op", "none_for"), [("acos", "add"), ("asin", "add"), ("acos", "rsqrt")])
def test_none_from_a_handler_inside_a_formula(op, none_for):
    assert _outcome(ember, op, none_for) == _outcome(torch, op, none_for)


def test_python_code_meeting_none_keeps_its_error():
    class Twice(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return None.mul(grad)  # a user's own bug: Python's AttributeError

    x = ember.tensor([1.0], requires_grad=True)
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'mul'"):
        Twice.apply(x).sum().backward()
