"""Tensor.H, Tensor.mH and adjoint: the (conjugate) transpose of matrices.

Layer: aten/native (CompositeImplicitAutograd: transpose and conj through `at`). In: a
matrix (H), a batch of matrices (mH, adjoint), or a 0-d tensor (deprecated: its conjugate).
Out: a view. Mirrors ATen/native/TensorShape.cpp (matrix_H, mH, adjoint, _adjoint).
"""

from __future__ import annotations

from ember._c10.warning import torch_warn_once
from ember.aten.native import at

__all__ = ["adjoint", "mH", "matrix_H"]


def _conjugate_transpose(self):
    if self.dim() == 0:
        return at.conj(self) if self.dtype.is_complex else self
    transposed = at.transpose_int(self, -2, -1)
    return at.conj(transposed) if self.dtype.is_complex else transposed


def matrix_H(self):  # noqa: N802 (PyTorch's name)
    ndim = self.dim()
    if ndim == 0:
        torch_warn_once(
            "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
            "aten/src/ATen/native/TensorShape.cpp:4335",
        )
    elif ndim != 2:
        batches = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor.{batches}"
        )
    return _conjugate_transpose(self)


def _adjoint(self, name: str, deprecated: str, line: int):
    ndim = self.dim()
    if ndim == 0:
        torch_warn_once(
            f"{deprecated} is deprecated on 0-D tensors. Consider using x.conj().",
            f"aten/src/ATen/native/TensorShape.cpp:{line}",
        )
    elif ndim == 1:
        raise RuntimeError(
            f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return _conjugate_transpose(self)


def mH(self):  # noqa: N802 (PyTorch's name)
    return _adjoint(self, "mH", "Tensor.mH", 4382)


def adjoint(self):
    return _adjoint(self, "adjoint()", "adjoint()", 4390)
