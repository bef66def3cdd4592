"""The split family beyond split / split_with_sizes / chunk: tensor_split (sections,
indices, a tensor of either), hsplit / vsplit / dsplit, unsafe_split,
unsafe_split_with_sizes and unsafe_chunk.

Layer: aten/native. tensor_split and the h/v/dsplit are CompositeImplicitAutograd (slices
through `at`, so autograd records SliceBackward0 per piece); unsafe_split(_with_sizes) are
CompositeExplicitAutograd: split's pieces returned as outputs of their own (their
derivative is UnsafeSplitBackward0), as PyTorch's unsafe variants. Mirrors
ATen/native/TensorShape.cpp.
"""

from __future__ import annotations

import math

from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.restride import split_Tensor, split_with_sizes

_VECTOR_MAX_SIZE = (2**63 - 1) // 8  # std::vector<at::Tensor>::max_size()

__all__ = [
    "dsplit_array",
    "dsplit_int",
    "hsplit_array",
    "hsplit_int",
    "tensor_split_indices",
    "tensor_split_sections",
    "tensor_split_tensor_indices_or_sections",
    "unsafe_chunk",
    "unsafe_split_Tensor",
    "unsafe_split_with_sizes",
    "vsplit_array",
    "vsplit_int",
]


def _check_split_input(self) -> int:
    if self.dim() <= 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
            f"{self.dim()} dims"
        )
    return self.dim()


def tensor_split_sections(self, sections, dim):
    wrapped = wrap_dim(dim, _check_split_input(self))
    sections = int(sections)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    if sections > _VECTOR_MAX_SIZE:
        raise RuntimeError("cannot create std::vector larger than max_size()")
    dim_size = self._sizes[wrapped]
    min_split_size, extra = divmod(dim_size, sections)
    splits = []
    start = 0
    for i in range(sections):
        size = min_split_size + 1 if extra > i else min_split_size
        splits.append(at.slice_Tensor(self, wrapped, start, start + size, 1))
        start += size
    return splits


def tensor_split_indices(self, indices, dim):
    wrapped = wrap_dim(dim, _check_split_input(self))
    splits = []
    start = 0
    for end in indices:
        end = int(end)
        splits.append(at.slice_Tensor(self, wrapped, start, end, 1))
        start = end
    splits.append(at.slice_Tensor(self, wrapped, start, self._sizes[wrapped], 1))
    return splits


def tensor_split_tensor_indices_or_sections(self, tensor_indices_or_sections, dim):  # noqa: N802
    _check_split_input(self)
    split = tensor_indices_or_sections
    if split.device.type != "cpu":
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
            f"{split.device}"
        )
    if split.dtype is not dtypes.int64:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            f"{dtypes.scalar_type_name(split.dtype)}"
        )
    if split.dim() not in (0, 1):
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
            f"one-dimensional tensor, but got a tensor with {split.dim()} dims"
        )
    if split.dim() == 0:
        return at.tensor_split_sections(self, int(split.ndarray()), dim)
    return at.tensor_split_indices(self, [int(i) for i in split.ndarray()], dim)


def _check_split_ndim(name: str, self, least: int) -> None:
    if self.dim() < least:
        what = "1 dimension" if least == 1 else f"{least} dimension"
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {what}, but got a tensor with "
            f"{self.dim()} dimensions!"
        )


def _split_int(name: str, self, sections, dim: int):
    sections = int(sections)
    if sections == 0 or math.fmod(self._sizes[dim], sections) != 0:
        raise RuntimeError(
            f"torch.{name} attempted to split along dimension {dim}, but the size of the "
            f"dimension {self._sizes[dim]} is not divisible by the split_size {sections}!"
        )
    return at.tensor_split_sections(self, sections, dim)


def hsplit_int(self, sections):  # noqa: N802
    _check_split_ndim("hsplit", self, 1)
    return _split_int("hsplit", self, sections, 0 if self.dim() == 1 else 1)


def vsplit_int(self, sections):  # noqa: N802
    _check_split_ndim("vsplit", self, 2)
    return _split_int("vsplit", self, sections, 0)


def dsplit_int(self, sections):  # noqa: N802
    _check_split_ndim("dsplit", self, 3)
    return _split_int("dsplit", self, sections, 2)


def hsplit_array(self, indices):
    _check_split_ndim("hsplit", self, 1)
    return at.tensor_split_indices(self, list(indices), 0 if self.dim() == 1 else 1)


def vsplit_array(self, indices):
    _check_split_ndim("vsplit", self, 2)
    return at.tensor_split_indices(self, list(indices), 0)


def dsplit_array(self, indices):
    _check_split_ndim("dsplit", self, 3)
    return at.tensor_split_indices(self, list(indices), 2)


def unsafe_split_Tensor(self, split_size, dim):  # noqa: N802
    return split_Tensor(self, split_size, dim)


def unsafe_split_with_sizes(self, split_sizes, dim):
    return split_with_sizes(self, split_sizes, dim)


def unsafe_chunk(self, chunks, dim):
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._sizes[wrap_dim(dim, self.dim())]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        return at.unsafe_split_with_sizes(self, [0] * chunks, dim)
    return at.unsafe_split_Tensor(self, split_size, dim)
