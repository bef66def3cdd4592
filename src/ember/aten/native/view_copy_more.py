"""More view_copy operators: select_copy, slice_copy, split_copy, detach_copy,
view_as_real_copy, view_as_complex_copy, and their out= overloads.

Layer: aten/native (device-generic). In: the view operator's arguments. Out: a fresh
contiguous tensor holding what the view would show (a list of them for split_copy). As
view_copy.py: PyTorch's generated CompositeExplicitAutogradNonFunctional kernels
(CompositeViewCopyKernels.cpp: the view through the dispatcher, then a contiguous clone)
and the out= kernels torchgen writes (the dtype check, resize, copy_); split_copy's out=
is TensorShape.cpp's.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.view_copy import _fresh, copy_into

__all__ = [
    "detach_copy",
    "detach_copy_out",
    "select_copy_int",
    "select_copy_int_out",
    "slice_copy_Tensor",
    "slice_copy_Tensor_out",
    "split_copy_Tensor",
    "split_copy_Tensor_out",
    "view_as_complex_copy",
    "view_as_complex_copy_out",
    "view_as_real_copy",
    "view_as_real_copy_out",
]


def select_copy_int(self, dim, index):
    return _fresh(at.select_int(self, dim, index))


def slice_copy_Tensor(self, dim, start, end, step):  # noqa: N802 (kernel names follow overloads)
    return _fresh(at.slice_Tensor(self, dim, start, end, step))


def split_copy_Tensor(self, split_size, dim):  # noqa: N802
    return [_fresh(piece) for piece in at.split_Tensor(self, split_size, dim)]


def detach_copy(self):
    return _fresh(at.detach(self))


def view_as_real_copy(self):
    return _fresh(at.view_as_real(self))


def view_as_complex_copy(self):
    return _fresh(at.view_as_complex(self))


def select_copy_int_out(self, dim, index, out):
    return copy_into(out, at.select_copy_int(self, dim, index))


def slice_copy_Tensor_out(self, dim, start, end, step, out):  # noqa: N802
    return copy_into(out, at.slice_copy_Tensor(self, dim, start, end, step))


def split_copy_Tensor_out(self, split_size, dim, out):  # noqa: N802
    """TensorShape.cpp's split_copy_Tensor_out: the count checked, then each out copy_'d
    (not resized: a wrongly shaped out= fails copy_'s broadcast)."""
    pieces = at.split_Tensor(self, split_size, dim)
    out = list(out)
    if len(out) != len(pieces):
        raise RuntimeError(
            f"split_copy_Tensor_out() expected an out= argument of size {len(pieces)}, "
            f"got size {len(out)}"
        )
    for target, piece in zip(out, pieces):
        at.copy_(target, piece, False)


def detach_copy_out(self, out):
    return copy_into(out, at.detach_copy(self))


def view_as_real_copy_out(self, out):
    return copy_into(out, at.view_as_real_copy(self))


def view_as_complex_copy_out(self, out):
    return copy_into(out, at.view_as_complex_copy(self))
