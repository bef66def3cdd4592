"""repeat, tile and repeat_interleave.

Layer: aten/native. repeat is CompositeExplicitAutograd (RepeatBackward0 above it) and
computes with NumPy into a fresh tensor; repeat_interleave.Tensor is the CPU kernel
turning counts into indices; tile and the two self overloads of repeat_interleave are
CompositeImplicitAutograd and call repeat / unsqueeze, expand, clone, flatten /
index_select as PyTorch does. Mirrors ATen/native/TensorShape.cpp (repeat, tile) and
ATen/native/Repeat.cpp / Repeat.h.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.reduction import store

__all__ = [
    "repeat",
    "repeat_interleave_Tensor",
    "repeat_interleave_self_Tensor",
    "repeat_interleave_self_int",
    "tile",
]

CONTIGUOUS_FORMAT = 0


def repeat(self, repeats):
    repeats = [int(r) for r in repeats]
    if len(repeats) < self.dim():
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = [1] * (len(repeats) - self.dim()) + list(self._sizes)
    target = [p * r for p, r in zip(padded, repeats)]
    result = at.empty_memory_format(target, self.dtype, None, self.device, None, None)
    if 0 in repeats or result.device.type == "meta":
        return result
    store(result, np.tile(self.ndarray().reshape(padded), repeats))
    return result


def tile(self, dims):
    dims = [int(d) for d in dims]
    size_diff = self.dim() - len(dims)
    if size_diff > 0:
        dims = [1] * size_diff + dims
    return at.repeat(self, dims)


def repeat_interleave_Tensor(repeats, output_size):  # noqa: N802 (kernel names follow overloads)
    if repeats.dtype is dtypes.bool or repeats.dtype.is_floating_point or repeats.dtype.is_complex:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{dtypes.scalar_type_name(repeats.dtype)}'"
        )
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("repeats has to be Long or Int tensor")
    if repeats._sizes[0] == 0:
        return at.empty_like(repeats, None, None, None, None, CONTIGUOUS_FORMAT)
    counts = repeats.ndarray().astype(np.int64)
    total = int(counts.sum()) if output_size is None else int(output_size)
    if output_size is None and (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    result = empty_tensor((total,), repeats.dtype, repeats.device)
    if total != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    store(result, np.repeat(np.arange(len(counts)), counts))
    return result


def repeat_interleave_self_Tensor(self, repeats, dim, output_size):  # noqa: N802
    conj = self.is_conj()
    source = at.conj(self) if conj else self
    if dim is None:
        source = at.flatten_using_ints(source, 0, -1)
        dim = 0
    axis_size = source._sizes[wrap_dim(dim, source.dim())]
    if repeats.dim() == 0 or (repeats.dim() == 1 and repeats._sizes[0] == 1):
        repeats = at.expand(at.reshape(repeats, [1]), [axis_size], False)
    elif repeats.dim() == 1:
        if repeats._sizes[0] != axis_size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats._sizes[0]} and input.size({dim}) = {axis_size}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    result = at.index_select(source, dim, at.repeat_interleave_Tensor(repeats, output_size))
    return at.conj(result) if conj else result


def repeat_interleave_self_int(self, repeats, dim, output_size):  # noqa: N802
    source = self if dim is not None else at.flatten_using_ints(self, 0, -1)
    dim = wrap_dim(0 if dim is None else dim, self.dim())
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    source = at.unsqueeze(source, dim + 1)
    expand_shape = list(source._sizes)
    expand_shape[dim + 1] = repeats
    source = at.expand(source, expand_shape, False)
    if output_size is not None:
        calculated = repeats * expand_shape[dim]
        if int(output_size) != calculated:
            raise RuntimeError(
                f"repeat_interleave: Invalid output_size, expected {calculated} but got "
                f"{output_size}"
            )
    return at.flatten_using_ints(at.clone(source, CONTIGUOUS_FORMAT), dim, dim + 1)
