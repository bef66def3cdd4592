"""The mask machinery every masked operation shares: canonical dims, canonical masks,
reduction identities, and the input with its masked-out elements replaced.

Layer: masked (the Python face, above nn). In: a strided input, an optional boolean
(or boolean-convertible) mask broadcastable to it. Out: plain tensors built with the
ordinary operators (clone, broadcast_to, where), so autograd and dispatch modes see
what PyTorch runs. Mirrors the helpers of torch/masked/_ops.py (_canonical_dim,
_input_mask, _output_mask, _reduction_identity, _where, _combine_input_and_mask).

Note [Masked operations on strided tensors]
-------------------------------------------
A masked operation is the plain operation applied to the input after every masked-out
element was replaced by the operation's identity (0 for sum, 1 for prod, -inf for
amax, NaN for median, ...): `where(mask, input, identity)`. ember stores only strided
tensors, so PyTorch's sparse COO/CSR branches and MaskedTensor inputs are refused with
NotImplementedError where PyTorch would take them (`refuse_layouts`).
"""

from __future__ import annotations

import math

import numpy as np

from ember import _type_helpers as _types
from ember._c10 import dtypes as _dtypes
from ember._c10.layout import strided
from ember._c10.naming import prefix
from ember._tensor_ctors import tensor as _tensor
from ember.aten._generated import python_functions as _functions

__all__ = [
    "refuse_layouts",
    "_canonical_dim",
    "_input_mask",
    "_output_mask",
    "_reduction_identity",
    "_where",
    "_combine_input_and_mask",
]

# Integer inputs that sum and prod promote to int64 when no dtype is given.
PROMOTED_TO_INT64 = frozenset(
    (_dtypes.uint8, _dtypes.bool, _dtypes.int8, _dtypes.int16, _dtypes.int32)
)

_REDUCTIONS = frozenset(
    ("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "var",
     "std", "logsumexp")
)  # fmt: skip
_NORMALIZATIONS = frozenset(("softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"))


def refuse_layouts(name: str, *inputs, masks=()) -> None:
    """NotImplementedError for a non-strided input or mask: PyTorch's sparse branches.
    An input's layout is read as PyTorch reads it (a non-tensor fails there); a mask that
    is no tensor fails later, where PyTorch's code fails on it."""
    layouts = [t.layout for t in inputs]
    layouts += [getattr(m, "layout", strided) for m in masks]
    for layout in layouts:
        if layout is not strided:
            raise NotImplementedError(
                f"{prefix()}.masked.{name}: {layout} tensors are not supported "
                "(ember stores strided tensors only; PyTorch's sparse and MaskedTensor "
                "paths of torch.masked have no counterpart)"
            )


def _canonical_dim(dim, ndim: int) -> tuple:
    """`dim` as a sorted tuple of non-negative dims; None and () mean every dim."""
    if dim == ():  # `dim=()` reduces over every dim, as PyTorch's reductions still do
        dim = None
    if dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims: list = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {d})"
            )
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _iinfo(dtype):
    """NumPy's iinfo of an integer dtype, refused as torch.iinfo refuses other dtypes."""
    if dtype.is_floating_point or dtype.is_complex or dtype is _dtypes.bool:
        raise TypeError(
            f"{prefix()}.iinfo() requires an integer input type. "
            f"Use {prefix()}.finfo to handle '{prefix()}.iinfo'"
        )
    return np.iinfo(dtype.np_dtype)


def _integral(input) -> bool:  # noqa: A002
    return input.is_signed() or input.dtype is _dtypes.uint8


def _reduction_identity(op_name: str, input, *args):  # noqa: A002 (PyTorch's name)
    """The 0-dim tensor a masked-out element stands for in `op_name`, or None where the
    identity is undefined (mean, var, std). The dtype tests are torch.is_floating_point,
    is_complex and is_signed calls, as in PyTorch, so a TorchFunctionMode sees them."""
    dtype = input.dtype
    device = input.device
    op_name = op_name.rsplit(".", 1)[-1]
    if op_name in ("sum", "cumsum"):
        return _tensor(0, dtype=dtype, device=device)
    if op_name in ("prod", "cumprod"):
        return _tensor(1, dtype=dtype, device=device)
    if op_name in ("amax", "argmax", "logaddexp"):
        if _types.is_floating_point(input):
            return _tensor(-math.inf, dtype=dtype, device=device)
        if _integral(input):
            return _tensor(int(_iinfo(dtype).min), dtype=dtype, device=device)
    elif op_name == "logsumexp":
        if _types.is_floating_point(input):
            return _tensor(-math.inf, dtype=dtype, device=device)
        if _types.is_complex(input):
            return _tensor(complex(-math.inf, 0), dtype=dtype, device=device)
        if _integral(input):
            return _tensor(int(_iinfo(dtype).min), dtype=dtype, device=device)
    elif op_name in ("amin", "argmin"):
        if _types.is_floating_point(input):
            return _tensor(math.inf, dtype=dtype, device=device)
        if _integral(input):
            return _tensor(int(_iinfo(dtype).max), dtype=dtype, device=device)
    elif op_name == "mean":
        return None  # the mean of the slice itself: no fixed identity
    elif op_name == "norm":
        ord = args[0] if args else 2  # noqa: A001 (PyTorch's name)
        if ord == -math.inf:
            if not _types.is_floating_point(input):
                raise AssertionError(f"input must be floating point, got {dtype}")
            return _tensor(math.inf, dtype=dtype, device=device)
        return _tensor(0, dtype=dtype, device=device)
    elif op_name == "median":
        # nanmedian computes the masked median: NaN is ignored, so NaN is its identity
        floating = _types.is_floating_point(input)
        return _tensor(math.nan, dtype=dtype if floating else _dtypes.float32, device=device)
    elif op_name in ("var", "std"):
        return None
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _where(mask, input, fill_value):  # noqa: A002
    """torch.where for the masked operations (PyTorch's sparse variants refused)."""
    refuse_layouts("_where", mask, input)
    return _functions.where(mask, input, fill_value)


def _input_mask(input, *args, **kwargs):  # noqa: A002
    """The canonical mask: a bool tensor of the input's shape (broadcast, converted)."""
    refuse_layouts("_input_mask", input)
    mask = kwargs.get("mask")
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask "
                "(got mask dimensionality higher than of the input)"
            )
        refuse_layouts("_input_mask", masks=(mask,))
        mask = _functions.broadcast_to(mask.clone(), input.shape).to(dtype=_dtypes.bool)
    refuse_layouts("_input_mask", masks=(mask,))
    return mask.to(dtype=_dtypes.bool)


def _any(input, dims: tuple, keepdim: bool):  # noqa: A002
    """any over several dims, one dim at a time (PyTorch's workaround of any(dim=tuple))."""
    result = input
    for d in reversed(dims):
        result = result.any(dim=d, keepdim=keepdim)
    return result


def _output_mask(op, input, *args, **kwargs):  # noqa: A002
    """The mask of `op(input, *args, **kwargs)`'s result: which elements are defined."""
    if not callable(op):
        raise ValueError(f"_output_mask expected masked operation (got {type(op).__name__} object)")
    if op.__name__ in _REDUCTIONS:
        if op.__name__ == "norm" and args:
            args = args[1:]  # the ord argument
        dim = args[0] if args else kwargs.get("dim")
        outmask = _input_mask(input, *args, **kwargs)
        keepdim = kwargs.get("keepdim", False)
        return _any(outmask, _canonical_dim(dim, input.ndim), bool(keepdim))
    if op.__name__ in _NORMALIZATIONS:
        return _input_mask(input, *args, **kwargs)
    raise ValueError(
        f"_output_mask expected masked operation (got callable {op.__module__}.{op.__name__})"
    )


def _combine_input_and_mask(op, input, mask, *args):  # noqa: A002
    """The input with every masked-out element replaced by `op`'s identity."""
    if mask is None:
        return input
    canonical = _input_mask(input, mask=mask)
    if not callable(op):
        raise ValueError(
            f"_combine_input_and_mask expected masked operation (got {type(op).__name__} object)"
        )
    return _where(canonical, input, _reduction_identity(op.__name__, input, *args))
