"""Meta functions of the LAPACK-backed decompositions: det, slogdet, inv, solve, cholesky,
qr, svd, eigh.

Layer: aten/meta. In: the functional arguments (tensors may be meta). Out: a StructuredMeta
whose matrices are batched column-major, as LAPACK writes them (PyTorch's
batched_matrix_contiguous_strides(sizes, f_contig=true)). Mirrors the TORCH_META_FUNC
definitions of ATen/native/BatchLinearAlgebra.cpp and the checks of LinearAlgebraUtils.h
(squareCheckInputs, checkFloatingOrComplex, linalg_solve_is_vector_rhs), with their texts.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.tensor_impl import contiguous_strides
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec, broadcast_shapes

__all__ = [
    "_linalg_det", "_linalg_slogdet", "linalg_inv_ex", "_linalg_solve_ex",
    "linalg_cholesky_ex", "linalg_qr", "_linalg_svd", "_linalg_eigh",
]  # fmt: skip


def f_contig_strides(sizes: tuple) -> tuple:
    """batched_matrix_contiguous_strides(sizes, /*f_contig=*/true): each matrix column-major."""
    if len(sizes) < 2:
        return contiguous_strides(sizes)
    m, n = sizes[-2:]
    matrix = max(m, 1) * max(n, 1)
    batch = tuple(s * matrix for s in contiguous_strides(sizes[:-2]))
    return batch + (1, max(m, 1))


def check_is_matrix(t, name: str, arg: str = "A") -> None:
    if t.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")


def square_check_inputs(t, name: str, arg: str = "A") -> None:
    """squareCheckInputs: at least 2 dimensions, square matrices."""
    check_is_matrix(t, name, arg)
    m, n = t._sizes[-2:]
    if m != n:
        raise RuntimeError(
            f"{name}: {arg} must be batches of square matrices, but they are {m} by {n} matrices"
        )


def check_floating_or_complex(t, name: str, allow_low_precision: bool = True) -> None:
    """checkFloatingOrComplex (LinearAlgebraUtils.h)."""
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. "
            f"Got {dtypes.scalar_type_name(t.dtype)}"
        )
    if not allow_low_precision and t.dtype in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError(
            f"{name}: Low precision dtypes not supported. Got {dtypes.scalar_type_name(t.dtype)}"
        )


def _spec(sizes, dtype, device, f_contig: bool = False) -> OutputSpec:
    sizes = tuple(sizes)
    return OutputSpec(sizes, f_contig_strides(sizes) if f_contig else None, dtype, device)


def _lu_outputs(A) -> tuple:
    batch, n = A._sizes[:-2], A._sizes[-1]
    return (_spec(A._sizes, A.dtype, A.device, True), _spec(batch + (n,), dtypes.int32, A.device))


def _linalg_det(A) -> StructuredMeta:
    square_check_inputs(A, "linalg.det")
    check_floating_or_complex(A, "linalg.det")
    lu, pivots = _lu_outputs(A)
    return StructuredMeta((_spec(A._sizes[:-2], A.dtype, A.device), lu, pivots), exact_out=True)


def _linalg_slogdet(A) -> StructuredMeta:
    square_check_inputs(A, "linalg.slogdet")
    check_floating_or_complex(A, "linalg.slogdet", allow_low_precision=False)
    batch = A._sizes[:-2]
    sign = _spec(batch, A.dtype, A.device)
    logabsdet = _spec(batch, A.dtype.to_real(), A.device)
    lu, pivots = _lu_outputs(A)
    return StructuredMeta((sign, logabsdet, lu, pivots), exact_out=True)


def linalg_inv_ex(A, check_errors) -> StructuredMeta:
    square_check_inputs(A, "linalg.inv")
    check_floating_or_complex(A, "linalg.inv", allow_low_precision=False)
    inverse = _spec(A._sizes, A.dtype, A.device, True)
    info = _spec(A._sizes[:-2], dtypes.int32, A.device)
    return StructuredMeta((inverse, info), exact_out=True)


def solve_is_vector_rhs(A, B) -> bool:
    """linalg_solve_is_vector_rhs: B is a vector, or a batch of vectors of A's batch shape."""
    expected = A._sizes[:-1]
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and B._sizes == expected)


def _linalg_solve_ex(A, B, left, check_errors) -> StructuredMeta:
    square_check_inputs(A, "linalg.solve")
    check_floating_or_complex(A, "linalg.solve", allow_low_precision=False)
    if A.dtype is not B.dtype:
        name = dtypes.scalar_type_name
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{name(A.dtype)} and B of type {name(B.dtype)} instead"
        )
    vector_case = solve_is_vector_rhs(A, B)
    b_sizes = B._sizes + (1,) if vector_case else B._sizes
    n = A._sizes[-1]
    k_dim = -2 if left else -1
    if len(b_sizes) < 2 or b_sizes[k_dim] != n:
        rows, cols = (b_sizes[-2], b_sizes[-1]) if len(b_sizes) >= 2 else (b_sizes[-1], 1)
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {equation} "
            f"({n}x{n} and {rows}x{cols})"
        )
    batch = broadcast_shapes(b_sizes[:-2], A._sizes[:-2])  # _linalg_broadcast_batch_dims(B, A)
    result_sizes = batch + (b_sizes[-2:] if not vector_case else (b_sizes[-2],))
    # batched_matrix_contiguous_strides(result_shape, f_contig=left): a batch of vectors is
    # laid out as one column-major matrix too
    result = _spec(result_sizes, A.dtype, A.device, f_contig=left)
    lu, pivots = _lu_outputs(A)  # A's own batch: B broadcasts against the factorization
    info = _spec(A._sizes[:-2], dtypes.int32, A.device)
    return StructuredMeta((result, lu, pivots, info), exact_out=True)


def linalg_cholesky_ex(self, upper, check_errors) -> StructuredMeta:
    square_check_inputs(self, "linalg.cholesky")
    check_floating_or_complex(self, "linalg.cholesky")
    L = _spec(self._sizes, self.dtype, self.device, True)
    info = _spec(self._sizes[:-2], dtypes.int32, self.device)
    return StructuredMeta((L, info), exact_out=True)


def qr_mode(mode: str) -> tuple[bool, bool]:
    """_parse_qr_mode: (compute_q, reduced)."""
    if mode == "reduced":
        return True, True
    if mode == "complete":
        return True, False
    if mode == "r":
        return False, True
    raise RuntimeError(
        f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
        "'r', or 'complete'"
    )


def linalg_qr(A, mode) -> StructuredMeta:
    check_is_matrix(A, "linalg.qr")
    check_floating_or_complex(A, "linalg.qr")
    compute_q, reduced = qr_mode(mode)
    batch, (m, n) = A._sizes[:-2], A._sizes[-2:]
    k = min(m, n)
    if compute_q:
        q = _spec(batch + (m, k if reduced else m), A.dtype, A.device, True)
    else:
        q = _spec((0,), A.dtype, A.device)
    r = _spec(batch + (k if reduced else m, n), A.dtype, A.device, True)
    return StructuredMeta((q, r), exact_out=True)


def _linalg_svd(A, full_matrices, compute_uv, driver) -> StructuredMeta:
    check_is_matrix(A, "linalg.svd")
    check_floating_or_complex(A, "linalg.svd")
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )
    batch, (m, n) = A._sizes[:-2], A._sizes[-2:]
    k = min(m, n)
    real = A.dtype.to_real()
    if compute_uv:
        u = _spec(batch + (m, m if full_matrices else k), A.dtype, A.device, True)
        vh = _spec(batch + (n if full_matrices else k, n), A.dtype, A.device, True)
    else:
        u = _spec((0,), A.dtype, A.device)
        vh = _spec((0,), A.dtype, A.device)
    s = _spec(batch + (k,), real, A.device)
    return StructuredMeta((u, s, vh), exact_out=True)


def _linalg_eigh(A, UPLO, compute_v) -> StructuredMeta:
    square_check_inputs(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    values = _spec(A._sizes[:-1], A.dtype.to_real(), A.device)
    if compute_v:
        vectors = _spec(A._sizes, A.dtype, A.device, True)
    else:
        vectors = _spec((0,), A.dtype, A.device)
    return StructuredMeta((values, vectors), exact_out=True)
