"""Meta functions of the LU family: linalg_lu_factor_ex, linalg_lu, lu_unpack,
linalg_lu_solve, and triangular_solve.

Layer: aten/meta. In: the functional arguments (tensors may be meta). Out: a StructuredMeta
(LU and the solutions batched column-major where PyTorch makes them so). Mirrors the
TORCH_META_FUNC definitions of ATen/native/BatchLinearAlgebra.cpp (linalg_lu_factor_ex,
linalg_lu, lu_unpack, linalg_lu_solve, triangular_solve), with their texts.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.tensor_impl import contiguous_strides
from ember.aten.meta.linalg_decomp import (
    check_floating_or_complex,
    check_is_matrix,
    f_contig_strides,
    square_check_inputs,
)
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec, broadcast_shapes

__all__ = [
    "linalg_lu_factor_ex", "linalg_lu", "lu_unpack", "linalg_lu_solve", "triangular_solve",
    "linalg_broadcast_batch", "check_solver_inputs",
]  # fmt: skip


def _sizes_text(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _spec(sizes, dtype, device, f_contig: bool = False) -> OutputSpec:
    sizes = tuple(sizes)
    strides = f_contig_strides(sizes) if f_contig else contiguous_strides(sizes)
    return OutputSpec(sizes, strides, dtype, device)


def _check_dims(A, name: str) -> None:  # noqa: N803
    if A.dim() < 2:
        raise RuntimeError(
            f"{name}: Expected tensor with 2 or more dimensions. Got size: "
            f"{_sizes_text(A._sizes)} instead"
        )


def linalg_lu_factor_ex(A, pivot, check_errors) -> StructuredMeta:  # noqa: N803
    _check_dims(A, "torch.lu_factor")
    batch, (m, n) = A._sizes[:-2], A._sizes[-2:]
    lu = _spec(A._sizes, A.dtype, A.device, True)
    pivots = _spec(batch + (min(m, n),), dtypes.int32, A.device)
    info = _spec(batch, dtypes.int32, A.device)
    return StructuredMeta((lu, pivots, info), exact_out=True)


def _plu(sizes, pivot_rows: bool, dtype, device) -> tuple:
    batch, (m, n) = sizes[:-2], sizes[-2:]
    k = min(m, n)
    P = _spec(batch + (m, m) if pivot_rows else (0,), dtype, device)  # noqa: N806
    return P, batch, m, n, k


def linalg_lu(A, pivot) -> StructuredMeta:  # noqa: N803
    _check_dims(A, "linalg.lu")
    P, batch, m, n, k = _plu(A._sizes, pivot, A.dtype, A.device)  # noqa: N806
    L = _spec(batch + (m, k), A.dtype, A.device)  # noqa: N806
    U = _spec(batch + (k, n), A.dtype, A.device)  # noqa: N806
    return StructuredMeta((P, L, U), exact_out=True)


def lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots) -> StructuredMeta:  # noqa: N803
    _check_dims(LU_data, "torch.lu_unpack")
    if unpack_pivots and LU_pivots.dtype is not dtypes.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    dtype, device = LU_data.dtype, LU_data.device
    P, batch, m, n, k = _plu(LU_data._sizes, unpack_pivots, dtype, device)  # noqa: N806
    if unpack_data:
        L, U = _spec(batch + (m, k), dtype, device), _spec(batch + (k, n), dtype, device)  # noqa: N806
    else:
        L, U = _spec((0,), dtype, device), _spec((0,), dtype, device)  # noqa: N806
    return StructuredMeta((P, L, U), exact_out=True)


def check_solver_inputs(A, B, left: bool, name: str) -> None:  # noqa: N803
    """checkInputsSolver: A square, B a matrix, the shared dimension equal."""
    square_check_inputs(A, name, "A")
    check_is_matrix(B, name, "B")
    ok = A._sizes[-2] == B._sizes[-2] if left else A._sizes[-1] == B._sizes[-1]
    if not ok:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation {equation} "
            f"({A._sizes[-2]}x{A._sizes[-1]} and {B._sizes[-2]}x{B._sizes[-1]})"
        )


def linalg_broadcast_batch(B, A) -> tuple:  # noqa: N803
    """_linalg_broadcast_batch_dims(B, A): the sizes B and A expand to."""
    batch = broadcast_shapes(B._sizes[:-2], A._sizes[:-2])
    return batch + B._sizes[-2:], batch + A._sizes[-2:]


def linalg_lu_solve(LU, pivots, B, left, adjoint) -> StructuredMeta:  # noqa: N803
    check_floating_or_complex(LU, "torch.linalg.lu_solve")
    if LU.dtype is not B.dtype:
        name = dtypes.scalar_type_name
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{name(LU.dtype)} and B of type {name(B.dtype)} instead"
        )
    if pivots.dtype is not dtypes.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    square_check_inputs(LU, "torch.linalg.lu_solve")
    check_solver_inputs(LU, B, left, "linalg.lu_solve")
    if LU._sizes[-1] != (pivots._sizes[-1] if pivots.dim() else 1):
        raise RuntimeError(
            "linalg.lu_solve: Number of pivots per batch should be same as the dimension of "
            "the matrix"
        )
    if pivots._sizes != LU._sizes[:-1]:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
            f"pivots with shape {_sizes_text(pivots._sizes)} instead"
        )
    sizes = linalg_broadcast_batch(B, LU)[0]
    return StructuredMeta((_spec(sizes, B.dtype, B.device, left),), exact_out=True)


def _linear_solve_check(b, A, name: str) -> None:  # noqa: N803
    """linearSolveCheckInputs (LinearAlgebraUtils.h)."""
    if b.dtype is not A.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{dtypes.scalar_type_name(b.dtype)} and A of type "
            f"{dtypes.scalar_type_name(A.dtype)} instead."
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


def triangular_solve(self, A, upper, transpose, unitriangular) -> StructuredMeta:  # noqa: N803
    for t, label in ((self, "b"), (A, "A")):
        if t.dim() < 2:
            raise RuntimeError(
                f"torch.triangular_solve: Expected {label} to have at least 2 dimensions, but "
                f"it has {t.dim()} dimensions instead"
            )
    _linear_solve_check(self, A, "triangular_solve")
    b_sizes, a_sizes = linalg_broadcast_batch(self, A)
    solution = _spec(b_sizes, self.dtype, self.device, True)
    clone = _spec(a_sizes, A.dtype, A.device, True)
    return StructuredMeta((solution, clone), exact_out=True)
