"""The Python-level functions PyTorch writes in torch/functional.py that ember has: norm,
split and broadcast_shapes (with Tensor.norm and Tensor.split of torch/_tensor.py).

Layer: torch face (above aten). In: Python arguments. Out: the result of the aten
operator PyTorch's function reaches. norm: linalg_vector_norm for a numeric p (and
for "fro" over at most two dims), the Frobenius case of linalg.matrix_norm
otherwise, so grad_fn is LinalgVectorNormBackward0 and a __torch_dispatch__ mode
sees aten.linalg_vector_norm.default, as in PyTorch. split dispatches on the type
of its sizes through Tensor.split. Mirrors torch.functional.norm / split,
Tensor.norm / split (torch/_tensor.py) and the checks of linalg_matrix_norm
(ATen/native/LinearAlgebra.cpp).
"""

from __future__ import annotations

from collections.abc import Sequence

from ember._size import Size
from ember._tensor import Tensor
from ember.aten._generated import python_functions
from ember.linalg import matrix_norm, vector_norm

__all__ = ["broadcast_shapes", "norm", "split", "tensor_norm"]


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002
    """torch.norm: the vector norm of `input` (or, for a string p, a matrix norm)."""
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _vector_norm(input, 2, _dim, keepdim, dtype, out)
        if _dim is None:
            _dim = list(range(input.dim()))
        return _matrix_norm(input, p, _dim, keepdim, dtype, out)
    return _vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype, out)


def tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm: torch.norm(self, ...)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


def _vector_norm(input, ord, dim, keepdim, dtype, out):  # noqa: A002
    if out is None:
        return vector_norm(input, ord, dim, keepdim, dtype=dtype)
    return vector_norm(input, ord, dim, keepdim, dtype=dtype, out=out)


def _matrix_norm(A, ord, dim, keepdim, dtype, out):  # noqa: A002, N803
    """torch.linalg.matrix_norm with the string ord ("fro", "nuc")."""
    if out is None:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, ord, dim, keepdim, dtype=dtype, out=out)


def split(tensor, split_size_or_sections, dim=0):
    """torch.split: Tensor.split, whose branching picks split or split_with_sizes."""
    return tensor.split(split_size_or_sections, dim)


def tensor_split_method(self, split_size, dim=0):
    """Tensor.split (torch/_tensor.py): an int, or a tensor that converts to one, goes to
    aten::split.Tensor; anything else to split_with_sizes, whose parser names the type."""
    if isinstance(split_size, Tensor):
        try:
            split_size = int(split_size)
        except ValueError:
            pass
    if isinstance(split_size, int):
        return python_functions.split(self, split_size, dim)
    return python_functions.split_with_sizes(self, split_size, dim)


tensor_split_method.__name__ = "split"
tensor_split_method.__qualname__ = "Tensor.split"


def broadcast_shapes(*shapes) -> Size:
    """torch.broadcast_shapes (torch._refs._broadcast_shapes): the shape every argument
    broadcasts to; an int is a 1-d shape and None is skipped."""
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}"
            )
    common = [1] * max(len(shape) for shape in shapes)
    for position, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            size = shape[idx]
            if size == common[idx]:
                continue
            if common[idx] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = size
            if size != 1 and common[idx] != size:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {idx}! "
                    f"Mismatching argument at index {position} had {shape}; but expected "
                    f"shape should be broadcastable to {common}"
                )
    return Size(common)
