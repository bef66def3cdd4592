"""The torch.* functions PyTorch writes in Python over an operator: chain_matmul (its
`*matrices` form, torch/functional.py), range (the binding's deprecation warning,
python_torch_functions_manual.cpp) and detach_ (the in-place detach of autograd's
VariableType, as Tensor.detach_).

Layer: _namespace. In: the user's arguments. Out: what the operator returns.
"""

from __future__ import annotations

from ember._c10.naming import prefix
from ember._c10.warning import python_warn
from ember._ops import ops
from ember._tensor import Tensor
from ember.aten._generated import python_functions as _bindings
from ember.aten.python_arg_parser import PythonArgParser

__all__ = ["chain_matmul", "detach_", "range"]


def chain_matmul(*matrices, out=None):
    """The product of the matrices, chained in the cheapest order (deprecated)."""
    if out is None:
        return _bindings.chain_matmul(matrices)
    return _bindings.chain_matmul(matrices, out=out)


_range_parser = PythonArgParser(
    [
        "range(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, ScalarType dtype=None, "
        "Layout layout=torch.strided, Device device=None, bool requires_grad=False)"
    ]
)


def range(*args, **kwargs):  # noqa: A001 (torch's name)
    """torch.range (deprecated): [start, end] inclusive, in the default dtype; one Python
    signature, as python_torch_functions_manual.cpp binds it."""
    start, end, step, out, dtype, layout, device, requires_grad = _range_parser.parse(args, kwargs)[
        1
    ]
    python_warn(
        f"{prefix()}.range is deprecated and will be removed in a future release because its "
        f"behavior is inconsistent with Python's range builtin. Instead, use {prefix()}.arange, "
        "which produces values in [start, end)."
    )
    if out is not None:
        return ops.aten.range.out(start, end, step, out=out)
    result = ops.aten.range.step(start, end, step, dtype=dtype, layout=layout, device=device)
    return result.requires_grad_() if requires_grad else result


_detach_parser = PythonArgParser(["detach_(Tensor input)"])


def detach_(*args, **kwargs):
    return Tensor.detach_(_detach_parser.parse(args, kwargs)[1][0])
