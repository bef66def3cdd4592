"""CPU kernels of linalg.solve_triangular: triangular systems A X = B or X A = B.

Layer: aten/native. In: the schema's arguments (and `out`). Out: X, batched column-major as
PyTorch writes it. Mirrors linalg_solve_triangular_out of ATen/native/BatchLinearAlgebra.cpp
(checkInputsSolver's checks, the batch dims broadcast, a right solve as the transposed left
one) on BLAS trsm through SciPy, per matrix of the batch, as PyTorch's triangular_solve_stub.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.meta.linalg_decomp import check_is_matrix, f_contig_strides, square_check_inputs
from ember.aten.native import at
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_impl, resize_output
from ember.aten.tensor_iterator import broadcast_shapes

__all__ = ["linalg_solve_triangular", "linalg_solve_triangular_out"]

_NAME = "linalg.solve_triangular"


def _check(A, B, left):  # noqa: N803
    """checkInputsSolver, then the dtypes LAPACK's trtrs has."""
    square_check_inputs(A, _NAME, "A")
    check_is_matrix(B, _NAME, "B")
    ok = A._sizes[-2] == B._sizes[-2] if left else A._sizes[-1] == B._sizes[-1]
    if not ok:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{_NAME}: Incompatible shapes of A and B for the equation {equation} "
            f"({A._sizes[-2]}x{A._sizes[-1]} and {B._sizes[-2]}x{B._sizes[-1]})"
        )
    for t in (A, B):
        if not (t.dtype.is_floating_point or t.dtype.is_complex) or t.dtype in (
            dtypes.float16,
            dtypes.bfloat16,
        ):
            raise NotImplementedError(
                f"\"triangular_solve_cpu\" not implemented for '{dtypes.scalar_type_name(t.dtype)}'"
            )
    if A.dtype is not B.dtype:
        raise NotImplementedError(
            f"{_NAME}: ember solves only A and B of one dtype (got "
            f"{dtypes.scalar_type_name(A.dtype)} and {dtypes.scalar_type_name(B.dtype)})"
        )


def _solve(A, B, upper, left, unitriangular) -> np.ndarray:  # noqa: N803
    a, b = A.ndarray(), B.ndarray()
    batch = broadcast_shapes(B._sizes[:-2], A._sizes[:-2])
    n = a.shape[-1]
    a = np.broadcast_to(a, batch + (n, n))
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if not left:  # X A = B  <=>  A^T X^T = B^T (the opposite triangle)
        a, b, upper = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper
    x = np.empty(b.shape, dtype=a.dtype)
    if x.size:
        # BLAS trsm, as PyTorch's triangular_solve_stub: a zero on the diagonal gives inf / nan
        # (LAPACK's trtrs would stop at it and leave B unsolved)
        trsm = blas.get_blas_funcs(("trsm",), (a,))[0]
        diag = 1 if unitriangular else 0
        with np.errstate(all="ignore"):
            for index in np.ndindex(*batch):
                x[index] = trsm(1.0, a[index], b[index], side=0, lower=0 if upper else 1,
                                diag=diag)  # fmt: skip
    return np.swapaxes(x, -1, -2) if not left else x


def linalg_solve_triangular(self, B, upper, left, unitriangular):  # noqa: N803
    _check(self, B, left)
    x = _solve(self, B, upper, left, unitriangular)
    result = at.empty_memory_format([0], self.dtype, strided, self.device, None, None)
    resize_impl(result, x.shape, f_contig_strides(x.shape))
    if x.size:
        store(result, x)
    return result


def linalg_solve_triangular_out(self, B, upper, left, unitriangular, out):  # noqa: N803
    _check(self, B, left)
    x = _solve(self, B, upper, left, unitriangular)
    if out.numel() == 0 and out._sizes != x.shape:
        resize_impl(out, x.shape, f_contig_strides(x.shape))
    else:
        resize_output(out, x.shape)
    if x.size:
        store(out, x)
    return out
