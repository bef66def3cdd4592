"""Composite stacking and broadcasting kernels: atleast_1d/2d/3d, hstack, vstack, dstack,
column_stack, broadcast_to, broadcast_tensors, meshgrid, cartesian_prod.

Layer: aten/native, CompositeImplicitAutograd. In: the full schema argument list. Out:
what the operators they call return (reshape, unsqueeze, cat, expand, stack), so a
dispatch mode and autograd see PyTorch's calls. Mirrors ATen/native/TensorShape.cpp
(atleast_*, *stack, meshgrid) and ATen/native/Itertools.cpp (cartesian_prod).
"""

from __future__ import annotations

from ember._c10.tensor_impl import shape_text
from ember._c10.warning import torch_warn_once
from ember.aten.native import at

__all__ = [
    "atleast_1d",
    "atleast_1d_Sequence",
    "atleast_2d",
    "atleast_2d_Sequence",
    "atleast_3d",
    "atleast_3d_Sequence",
    "broadcast_tensors",
    "broadcast_to",
    "cartesian_prod",
    "column_stack",
    "column_stack_out",
    "dstack",
    "dstack_out",
    "hstack",
    "hstack_out",
    "meshgrid",
    "meshgrid_indexing",
    "vstack",
    "vstack_out",
]


def atleast_1d(self):
    return at.reshape(self, [1]) if self.dim() == 0 else self


def atleast_2d(self):
    if self.dim() == 0:
        return at.reshape(self, [1, 1])
    if self.dim() == 1:
        return at.unsqueeze(self, 0)
    return self


def atleast_3d(self):
    ndim = self.dim()
    if ndim == 0:
        return at.reshape(self, [1, 1, 1])
    if ndim == 1:
        return at.unsqueeze(at.unsqueeze(self, 0), -1)
    if ndim == 2:
        return at.unsqueeze(self, -1)
    return self


def atleast_1d_Sequence(tensors):  # noqa: N802 (kernel names follow overloads)
    return [atleast_1d(t) for t in tensors]


def atleast_2d_Sequence(tensors):  # noqa: N802
    return [atleast_2d(t) for t in tensors]


def atleast_3d_Sequence(tensors):  # noqa: N802
    return [atleast_3d(t) for t in tensors]


def _nonempty(name: str, tensors) -> list:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def _hstack_parts(tensors):
    parts = atleast_1d_Sequence(_nonempty("hstack", tensors))
    return parts, 0 if parts[0].dim() == 1 else 1


def hstack(tensors):
    parts, dim = _hstack_parts(tensors)
    return at.cat(parts, dim)


def hstack_out(tensors, out):
    parts, dim = _hstack_parts(tensors)
    return at.cat_out(parts, dim, out)


def vstack(tensors):
    return at.cat(atleast_2d_Sequence(_nonempty("vstack", tensors)), 0)


def vstack_out(tensors, out):
    return at.cat_out(atleast_2d_Sequence(_nonempty("vstack", tensors)), 0, out)


def _dstack_parts(tensors):
    return atleast_3d_Sequence(_nonempty("dstack", tensors))


def dstack(tensors):
    return at.cat(_dstack_parts(tensors), 2)


def dstack_out(tensors, out):
    return at.cat_out(_dstack_parts(tensors), 2, out)


def _column_parts(tensors):
    return [
        at.reshape(t, [t.numel(), 1]) if t.dim() <= 1 else t
        for t in _nonempty("column_stack", tensors)
    ]


def column_stack(tensors):
    return at.cat(_column_parts(tensors), 1)


def column_stack_out(tensors, out):
    return at.cat_out(_column_parts(tensors), 1, out)


def broadcast_to(self, size):
    return at.expand(self, list(size), False)


def _broadcast_shape(tensors) -> list:
    """infer_size over every tensor's sizes, with infer_size's message on a mismatch."""
    shape: list = []
    for t in tensors:
        sizes = list(t._sizes)
        ndim = max(len(shape), len(sizes))
        a = [1] * (ndim - len(shape)) + shape
        b = [1] * (ndim - len(sizes)) + sizes
        merged = []
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise RuntimeError(
                    f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                    f"at non-singleton dimension {i}"
                )
            merged.append(y if x == 1 else x)
        shape = merged
    return shape


def broadcast_tensors(tensors):
    tensors = list(tensors)
    shape = _broadcast_shape(tensors)
    return [t if list(t._sizes) == shape else at.expand(t, shape, False) for t in tensors]


_INDEXINGS = ("ij", "xy")


def meshgrid(tensors):
    torch_warn_once(
        "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
        "argument.",
        "aten/src/ATen/native/TensorShape.cpp:4215",
    )
    return _meshgrid(list(tensors), "ij")


def meshgrid_indexing(tensors, indexing):
    return _meshgrid(list(tensors), indexing)


def _meshgrid(tensors, indexing: str):
    size = len(tensors)
    if size == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i in range(size - 1):
        first, other = tensors[i], tensors[i + 1]
        if first.dtype is not other.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if first.device != other.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    swap_first_and_second = size >= 2 and indexing == "xy"
    if indexing not in _INDEXINGS:
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if swap_first_and_second:
        tensors = [tensors[1], tensors[0], *tensors[2:]]
    shape = []
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"{_tensor_text(t)}"
            )
        shape.append(t.numel())
    grids = []
    view_shape = [1] * size
    for i, t in enumerate(tensors):
        view_shape[i] = -1
        grids.append(at.expand(at.view(t, list(view_shape)), shape, False))
        view_shape[i] = 1
    if swap_first_and_second:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


def _tensor_text(t) -> str:
    return repr(t)


def cartesian_prod(tensors):
    tensors = list(tensors)
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {shape_text(t._sizes)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(tensors, "ij")
    return at.stack([at.flatten_using_ints(g, 0, -1) for g in grids], 1)
