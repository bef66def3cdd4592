"""The shape and contraction functions PyTorch writes in Python in torch/functional.py:
atleast_1d/2d/3d, broadcast_tensors, block_diag, cartesian_prod, meshgrid, einsum,
tensordot and unravel_index.

Layer: torch face (beside ember.functional). In: Python arguments (variadic tensors,
einsum's sublist form, tensordot's `dims`). Out: the aten operator's result, reached
through the generated bindings exactly where torch.functional calls `_VF.<op>`.
einsum passes no contraction path: opt_einsum is not installed beside PyTorch here, and
without it torch.einsum passes none either. Mirrors torch/functional.py.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

from ember._c10 import dtypes
from ember._size import Size
from ember._tensor import Tensor
from ember._tensor_ctors import tensor
from ember.aten._generated import python_functions as _VF
from ember.aten.python_arg_parser import PythonArgParser

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_tensors",
    "cartesian_prod",
    "einsum",
    "meshgrid",
    "nonzero",
    "tensor_nonzero",
    "tensor_unique",
    "tensor_unique_consecutive",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]


def atleast_1d(*tensors):
    if len(tensors) == 1:
        tensors = tensors[0]
    return _VF.atleast_1d(tensors)


def atleast_2d(*tensors):
    if len(tensors) == 1:
        tensors = tensors[0]
    return _VF.atleast_2d(tensors)


def atleast_3d(*tensors):
    if len(tensors) == 1:
        tensors = tensors[0]
    return _VF.atleast_3d(tensors)


def broadcast_tensors(*tensors):
    return _VF.broadcast_tensors(tensors)


def block_diag(*tensors):
    return _VF.block_diag(tensors)


def cartesian_prod(*tensors):
    return _VF.cartesian_prod(tensors)


def meshgrid(*tensors, indexing: str | None = None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    kwargs = {} if indexing is None else {"indexing": indexing}
    return _VF.meshgrid(tensors, **kwargs)


def _parse_subscript(n) -> str:
    if n == Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args):
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, "
            "or at least one operand and its subscripts list"
        )
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_parse_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_parse_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation = args[0]
        operands = args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return _VF.einsum(equation, operands)


def tensordot(a, b, dims=2, out=None):
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or "
            f"list[list[int]] containing two lists, but got dims={dims}"
        )
    dims_a: list = []
    dims_b: list = []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.size()[0] != 2:
                raise AssertionError(
                    f"dims tensor must have size 2 in first dimension, got {dims.size()[0]}"
                )
            dims_a = dims[0].tolist()
            dims_b = dims[1].tolist()
        else:
            dims_val = int(dims.item())
            if dims_val < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a = list(range(-dims_val, 0))
            dims_b = list(range(dims_val))
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a = list(range(-dims, 0))
        dims_b = list(range(dims))
    if out is None:
        return _VF.tensordot(a, b, dims_a, dims_b)
    return _VF.tensordot(a, b, dims_a, dims_b, out=out)


def unravel_index(indices, shape):
    return _unravel_index(indices, shape).unbind(-1)


def _unravel_index(indices, shape):
    if indices.dtype.is_complex or indices.dtype.is_floating_point or indices.dtype is dtypes.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = Size([shape])
    else:
        for dim in shape:
            if not isinstance(dim, int):
                raise TypeError(
                    f"expected 'shape' sequence to only contain ints, but got {type(dim)}"
                )
        shape = Size(shape)
    if not all(dim >= 0 for dim in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    coefs = list(reversed(list(itertools.accumulate(reversed([*shape[1:], 1]), operator.mul))))
    quotient = indices.unsqueeze(-1).floor_divide(
        tensor(coefs, device=indices.device, dtype=dtypes.int64)
    )
    return quotient % tensor(list(shape), device=indices.device, dtype=dtypes.int64)


_NONZERO = PythonArgParser(["nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)"])
_NONZERO_METHOD = PythonArgParser(["nonzero(*, bool as_tuple)"])


def _nonzero(input, as_tuple, out):  # noqa: A002 (PyTorch's name)
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return _VF.nonzero_numpy(input)
    if out is not None:
        return _VF.nonzero(input, out=out)
    return _VF.nonzero(input)


def nonzero(*args, **kwargs):
    """torch.nonzero's hand-written binding (python_torch_functions_manual.cpp): as_tuple=True
    is nonzero_numpy."""
    values = _NONZERO.parse(args, kwargs)[1]
    return _nonzero(values[0], values[1], values[2])


def tensor_nonzero(self, *args, **kwargs):
    """Tensor.nonzero (python_variable_methods.cpp): `nonzero()` or `nonzero(*, as_tuple)`."""
    if not args and not kwargs:
        return _VF.nonzero(self)
    values = _NONZERO_METHOD.parse(args, kwargs)[1]
    return _nonzero(self, values[0], None)


def _unique_impl(input, sorted, return_inverse, return_counts, dim):  # noqa: A002
    if dim is not None:
        return _VF.unique_dim(
            input, dim, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
        )
    return _VF._unique2(
        input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
    )


def _chosen(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """torch.unique: _unique2 (or unique_dim), then the outputs the flags ask for."""
    output, inverse, counts = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return _chosen(output, inverse, counts, return_inverse, return_counts)


def _consecutive(input, return_inverse, return_counts, dim):  # noqa: A002
    output, inverse, counts = _VF.unique_consecutive(
        input, return_inverse=return_inverse, return_counts=return_counts, dim=dim
    )
    return _chosen(output, inverse, counts, return_inverse, return_counts)


# torch.unique_consecutive is a boolean_dispatch on return_inverse (argument 1), then on
# return_counts (argument 2): the function it picks names itself in argument errors.
def _consecutive_return_output(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    return _consecutive(input, return_inverse, return_counts, dim)


def _consecutive_return_counts(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    return _consecutive(input, return_inverse, return_counts, dim)


def _consecutive_return_inverse(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    return _consecutive(input, return_inverse, return_counts, dim)


def _consecutive_return_inverse_and_counts(  # noqa: A002
    input, return_inverse=False, return_counts=False, dim=None
):
    return _consecutive(input, return_inverse, return_counts, dim)


def _flag(args, kwargs, name: str, index: int) -> bool:
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else False


def unique_consecutive(*args, **kwargs):
    """torch.unique_consecutive: the outputs return_inverse / return_counts ask for."""
    if _flag(args, kwargs, "return_inverse", 1):
        if _flag(args, kwargs, "return_counts", 2):
            return _consecutive_return_inverse_and_counts(*args, **kwargs)
        return _consecutive_return_inverse(*args, **kwargs)
    if _flag(args, kwargs, "return_counts", 2):
        return _consecutive_return_counts(*args, **kwargs)
    return _consecutive_return_output(*args, **kwargs)


def tensor_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """Tensor.unique (torch/_tensor.py): torch.unique."""
    return unique(
        self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim
    )


def tensor_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    return unique_consecutive(
        self, return_inverse=return_inverse, return_counts=return_counts, dim=dim
    )
