"""CPU kernels of the deprecated torch.cholesky, cholesky_inverse, cholesky_solve (and its
_cholesky_solve_helper) and triangular_solve.

Layer: aten/native. In: the schema's arguments (and `out`). Out: tensors batched column-major
as LAPACK writes them. Mirrors BatchLinearAlgebra.cpp: cholesky (potrf, the other triangle
zeroed), cholesky_inverse_out (potri, then the computed triangle reflected and conjugated as
apply_cholesky_inverse does), cholesky_solve (linearSolveCheckInputs, the batch broadcast,
then potrs in _cholesky_solve_helper_cpu) and triangular_solve_out (the batch broadcast, BLAS
trsm per matrix, as triangular_solve_stub calls it), through SciPy's LAPACK and BLAS.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember._c10.memory_format import contiguous_format
from ember._c10.warning import torch_warn_once
from ember.aten.meta.linalg_decomp import f_contig_strides, square_check_inputs
from ember.aten.meta.linalg_lu import linalg_broadcast_batch
from ember.aten.native import at
from ember.aten.native.linalg_decomp import _lapack, _not_implemented, check_errors_info
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_impl, resize_output
from ember.aten.structured import _can_cast

__all__ = [
    "cholesky", "cholesky_out", "cholesky_inverse", "cholesky_inverse_out", "cholesky_solve",
    "cholesky_solve_out", "_cholesky_solve_helper_cpu", "triangular_solve_out",
]  # fmt: skip

_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
    "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for "
    "all valid (symmetric positive definite) inputs."
)
_TRIANGULAR_DEPRECATED = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
    "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
    "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
    "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B)."
)


def _f_contig(t, values: np.ndarray):
    """A new tensor of t's dtype and device, batched column-major, holding `values`."""
    result = at.empty_memory_format([0], t.dtype, strided, t.device, None, None)
    resize_impl(result, values.shape, f_contig_strides(values.shape))
    if values.size:
        store(result, values)
    return result


def _check_compatible(name: str, result, self) -> None:
    """checkSameDevice and checkLinalgCompatibleDtype (LinearAlgebraUtils.h)."""
    if result.device != self.device:
        raise RuntimeError(
            f"{name}: Expected result and input tensors to be on the same device, but got "
            f"result on {result.device} and input on {self.device}"
        )
    if not _can_cast(self.dtype, result.dtype):
        name_of = dtypes.scalar_type_name
        raise RuntimeError(
            f"{name}: Expected result to be safely castable from {name_of(self.dtype)} dtype, "
            f"but got result with dtype {name_of(result.dtype)}"
        )


def _copy_into(out, value):
    resize_output(out, value._sizes)
    at.copy_(out, value, False)
    return out


# -- cholesky --------------------------------------------------------------------------------


def cholesky(self, upper):
    torch_warn_once(_CHOLESKY_DEPRECATED, "aten/src/ATen/native/BatchLinearAlgebra.cpp:1765")
    if self.numel() == 0:
        return at.empty_like(self, None, None, None, None, contiguous_format)
    square_check_inputs(self, "cholesky")
    _not_implemented("cholesky_cpu", self)
    values = self.ndarray()
    factor = np.zeros(values.shape, dtype=values.dtype)
    codes = np.zeros(values.shape[:-2], dtype=np.int32)
    potrf = _lapack("potrf", values)
    for index in np.ndindex(*values.shape[:-2]):
        c, code = potrf(np.asfortranarray(values[index]), lower=0 if upper else 1, clean=1)
        factor[index], codes[index] = c, code
    check_errors_info(codes, "cholesky", self.dim() == 2)
    return _f_contig(self, factor)


def cholesky_out(self, upper, out):
    torch_warn_once(_CHOLESKY_DEPRECATED, "aten/src/ATen/native/BatchLinearAlgebra.cpp:1765")
    _check_compatible("cholesky", out, self)
    return _copy_into(out, at.cholesky(self, upper))


# -- cholesky_inverse ------------------------------------------------------------------------


def _cholesky_inverse_values(self, upper) -> np.ndarray:
    square_check_inputs(self, "cholesky_inverse")
    values = self.ndarray()
    batch, n = values.shape[:-2], values.shape[-1]
    inverse = np.empty(values.shape, dtype=values.dtype)
    _not_implemented("cholesky_inverse_out_cpu", self)
    if values.size == 0:
        return inverse
    codes = np.zeros(batch, dtype=np.int32)
    potri = _lapack("potri", values)
    rows, cols = np.triu_indices(n, 1)
    for index in np.ndindex(*batch):
        c, code = potri(np.asfortranarray(values[index]), lower=0 if upper else 1)
        codes[index] = code
        if code:
            break
        if upper:  # potri wrote the upper triangle: reflect it, conjugated
            c[cols, rows] = np.conj(c[rows, cols])
        else:
            c[rows, cols] = np.conj(c[cols, rows])
        inverse[index] = c
    check_errors_info(codes, "cholesky_inverse", self.dim() == 2)
    return inverse


def cholesky_inverse(self, upper):
    return _f_contig(self, _cholesky_inverse_values(self, upper))


def cholesky_inverse_out(self, upper, out):
    """Into `out` itself when it is empty or batched column-major of the input's dtype and
    shape, else through a temporary (resize_output, then copy_)."""
    square_check_inputs(self, "cholesky_inverse")
    _check_compatible("cholesky_inverse", out, self)
    values = _cholesky_inverse_values(self, upper)
    column_major = out.dim() >= 2 and out._strides == f_contig_strides(out._sizes)
    direct = out.dtype is self.dtype and (
        out.numel() == 0 or (column_major and out._sizes == self._sizes)
    )
    if not direct:
        return _copy_into(out, _f_contig(self, values))
    if out._sizes != values.shape or not column_major:
        resize_impl(out, values.shape, f_contig_strides(values.shape))
    if values.size:
        store(out, values)
    return out


# -- cholesky_solve --------------------------------------------------------------------------


def _linear_solve_check(b, A, name: str) -> None:  # noqa: N803
    """linearSolveCheckInputs (LinearAlgebraUtils.h)."""
    if b.dtype is not A.dtype:
        name_of = dtypes.scalar_type_name
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {name_of(b.dtype)} "
            f"and A of type {name_of(A.dtype)} instead."
        )
    if A._sizes[-1] != A._sizes[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A._sizes[-2]} by "
            f"{A._sizes[-1]} matrices"
        )
    if A._sizes[-1] != b._sizes[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {A._sizes[-1]} by "
            f"{A._sizes[-1]} but each b matrix is {b._sizes[-2]} by {b._sizes[-1]}"
        )


def cholesky_solve(self, input2, upper):
    if self.dim() < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {self.dim()} dimensions instead"
        )
    if input2.dim() < 2:
        raise RuntimeError(
            f"u should have at least 2 dimensions, but has {input2.dim()} dimensions instead"
        )
    _linear_solve_check(self, input2, "cholesky_solve")
    b_sizes, a_sizes = linalg_broadcast_batch(self, input2)
    b = at.expand(self, list(b_sizes), False)
    a = at.expand(input2, list(a_sizes), False)
    return at._cholesky_solve_helper(b, a, upper)


def cholesky_solve_out(self, input2, upper, out):
    _check_compatible("cholesky_solve", out, self)
    return _copy_into(out, at.cholesky_solve(self, input2, upper))


def _cholesky_solve_helper_cpu(self, A, upper):  # noqa: N803
    _not_implemented("cholesky_solve_cpu", self)
    b, a = self.ndarray(), A.ndarray()
    x = np.empty(b.shape, dtype=b.dtype)
    if b.size and a.size:
        potrs = _lapack("potrs", a)
        with np.errstate(all="ignore"):
            for index in np.ndindex(*b.shape[:-2]):
                x[index], _ = potrs(a[index], b[index], lower=0 if upper else 1)
    return _f_contig(self, x)


# -- triangular_solve ------------------------------------------------------------------------


def _trsm(a: np.ndarray, b: np.ndarray, upper: bool, transpose: bool, unit: bool) -> np.ndarray:
    trsm = blas.get_blas_funcs(("trsm",), (a,))[0]
    x = np.empty(b.shape, dtype=b.dtype)
    with np.errstate(all="ignore"):
        for index in np.ndindex(*b.shape[:-2]):
            x[index] = trsm(
                1.0, a[index], b[index], side=0, lower=0 if upper else 1,
                trans_a=1 if transpose else 0, diag=1 if unit else 0,
            )  # fmt: skip
    return x


def triangular_solve_out(meta, self, A, upper, transpose, unitriangular, X, M) -> None:  # noqa: N803
    torch_warn_once(_TRIANGULAR_DEPRECATED, "aten/src/ATen/native/BatchLinearAlgebra.cpp:2273")
    b_sizes, a_sizes = X._sizes, M._sizes
    b = np.broadcast_to(self.ndarray(), b_sizes)
    a = np.broadcast_to(A.ndarray(), a_sizes)
    _not_implemented("triangular_solve_cpu", self)
    if b.size and a.size:
        store(X, _trsm(a, b, upper, transpose, unitriangular))
    if a.size:
        store(M, a)
