"""CPU kernels of the LAPACK-backed decompositions: det, slogdet, inv, solve, cholesky, qr,
svd, eigh.

Layer: aten/native. In: the meta function's StructuredMeta, the schema's arguments and the
out tensors (batched column-major, as the meta function sized them). Out: the out tensors
filled. Mirrors the TORCH_IMPL_FUNC definitions of ATen/native/BatchLinearAlgebra.cpp:
PyTorch calls LAPACK (getrf/getrs, potrf, geqrf/orgqr, gesdd, syevd) per matrix of the batch,
and so does this module, through SciPy's LAPACK wrappers (getrf, getrs, potrf) and NumPy's
linalg (qr, svd, eigh: the same routines, in the input's own precision, float32 included).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

from ember._c10 import dtypes
from ember.aten.meta.linalg_decomp import qr_mode, solve_is_vector_rhs
from ember.aten.native.reduction import store

__all__ = [
    "_linalg_det_out", "_linalg_slogdet_out", "linalg_inv_ex_out", "_linalg_solve_ex_out",
    "linalg_cholesky_ex_out", "linalg_qr_out", "_linalg_svd_out", "_linalg_eigh_out",
]  # fmt: skip

_LOW = (dtypes.float16, dtypes.bfloat16)


def _not_implemented(kernel: str, t) -> None:
    """AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES' error for the dtypes LAPACK has no routine for."""
    if t.dtype in _LOW or not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(t.dtype)}'"
        )


def _lapack(name: str, array):
    return lapack.get_lapack_funcs((name,), (array,))[0]


def lu_factor_batched(values: np.ndarray):
    """getrf on each matrix: LU (same shape), 1-based int32 pivots, int32 info per matrix."""
    batch, n = values.shape[:-2], values.shape[-1]
    lu = np.empty(values.shape, dtype=values.dtype)
    pivots = np.empty(batch + (n,), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    if values.size == 0:
        pivots[...] = np.arange(1, n + 1, dtype=np.int32)
        return lu, pivots, info
    getrf = _lapack("getrf", values)
    for index in np.ndindex(*batch):
        factor, piv, code = getrf(np.asfortranarray(values[index]))
        lu[index], pivots[index], info[index] = factor, piv + 1, code
    return lu, pivots, info


def _permutation_sign(pivots: np.ndarray) -> np.ndarray:
    """lu_det_P: -1 to the number of rows the pivots swapped."""
    swaps = np.count_nonzero(pivots != np.arange(1, pivots.shape[-1] + 1), axis=-1)
    return np.where(swaps % 2 == 1, -1, 1)


def _diagonal(lu: np.ndarray) -> np.ndarray:
    return np.diagonal(lu, axis1=-2, axis2=-1)


def _factored(A) -> np.ndarray:
    """The matrix _linalg_det and _linalg_slogdet factor: A^T when A is contiguous and real
    (det(A^T) = det(A), and A^T is the column-major layout LAPACK wants), else A."""
    values = A.ndarray()
    if A.is_contiguous() and not A.dtype.is_complex:
        return np.swapaxes(values, -1, -2)
    return values


def _linalg_det_out(meta, A, result, LU, pivots) -> None:
    """det = lu_det_P(pivots) * prod(diag(U)), from linalg_lu_factor_ex."""
    _not_implemented("lu_cpu", A)
    lu, piv, _ = lu_factor_batched(_factored(A))
    det = _diagonal(lu).prod(axis=-1) * _permutation_sign(piv).astype(lu.dtype)
    store(LU, lu)
    store(pivots, piv)
    store(result, det)


def _linalg_slogdet_out(meta, A, sign, logabsdet, LU, pivots) -> None:
    """sign = sgn(diag(U)).prod() * lu_det_P(pivots), logabsdet = log|diag(U)|.sum()."""
    _not_implemented("lu_cpu", A)
    lu, piv, _ = lu_factor_batched(_factored(A))
    diag = _diagonal(lu)
    magnitude = np.abs(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        unit = np.where(magnitude == 0, 0, diag / np.where(magnitude == 0, 1, magnitude))
        log_abs = np.log(magnitude).sum(axis=-1)
    signs = unit.prod(axis=-1) * _permutation_sign(piv).astype(lu.dtype)
    store(LU, lu)
    store(pivots, piv)
    store(sign, signs)
    store(logabsdet, log_abs)


def _lu_solve(lu, piv, b, trans: int = 0) -> np.ndarray:
    """getrs on each matrix of a broadcast batch: op(A) X = B with A = P L U."""
    x = np.empty(b.shape, dtype=lu.dtype)
    if b.size == 0:
        return x
    getrs = _lapack("getrs", lu)
    for index in np.ndindex(*b.shape[:-2]):
        solution, _ = getrs(lu[index], piv[index] - 1, b[index], trans=trans)
        x[index] = solution
    return x


def linalg_inv_ex_out(meta, A, check_errors, inverse, info) -> None:
    """linalg_solve_ex(A, I): getrf, then getrs on the identity."""
    lu, piv, codes = lu_factor_batched(A.ndarray())
    n = A._sizes[-1]
    eye = np.broadcast_to(np.eye(n, dtype=lu.dtype), lu.shape)
    with np.errstate(all="ignore"):
        values = _lu_solve(lu, piv, eye)
    if check_errors:
        check_errors_info(codes, "linalg.inv_ex", A.dim() == 2)
    store(inverse, values)
    store(info, codes)


def _linalg_solve_ex_out(meta, A, B, left, check_errors, result, LU, pivots, info) -> None:
    """getrf on A (broadcast to the batch), then getrs; a right solve X A = B is
    A^T X^T = B^T (A^H for complex), as linalg_lu_solve computes it."""
    batch = meta.specs[0].sizes[: -1 if solve_is_vector_rhs(A, B) else -2]
    n = A._sizes[-1]
    lu, piv, codes = lu_factor_batched(A.ndarray())
    store(LU, lu)
    store(pivots, piv)
    store(info, codes)
    lu = np.broadcast_to(lu, batch + (n, n))
    piv = np.broadcast_to(piv, batch + (n,))
    if check_errors:
        check_errors_info(codes, "torch.linalg.solve_ex", A.dim() == 2)
    vector_case = solve_is_vector_rhs(A, B)
    b_values = B.ndarray()[..., None] if vector_case else B.ndarray()
    b_values = np.broadcast_to(b_values, batch + b_values.shape[-2:])
    with np.errstate(all="ignore"):
        if left:
            x = _lu_solve(lu, piv, b_values)
        else:
            adjoint = 2 if lu.dtype.kind == "c" else 1
            bh = np.swapaxes(b_values, -1, -2).conj()
            x = np.swapaxes(_lu_solve(lu, piv, bh, trans=adjoint), -1, -2).conj()
    store(result, x[..., 0] if vector_case else x)


def linalg_cholesky_ex_out(meta, self, upper, check_errors, L, info) -> None:
    """potrf per matrix; the other triangle zeroed."""
    _not_implemented("cholesky_cpu", self)
    values = self.ndarray()
    factor = np.zeros(values.shape, dtype=values.dtype)
    codes = np.zeros(values.shape[:-2], dtype=np.int32)
    if values.size:
        potrf = _lapack("potrf", values)
        for index in np.ndindex(*values.shape[:-2]):
            c, code = potrf(np.asfortranarray(values[index]), lower=0 if upper else 1, clean=1)
            factor[index], codes[index] = c, code
    if check_errors:
        check_errors_info(codes, "linalg.cholesky_ex", self.dim() == 2)
    store(L, factor)
    store(info, codes)


def linalg_qr_out(meta, A, mode, Q, R) -> None:
    """geqrf and orgqr / ungqr (NumPy's qr calls them)."""
    _not_implemented("geqrf_cpu", A)
    compute_q, reduced = qr_mode(mode)
    values = A.ndarray()
    if values.size == 0:
        m, n = values.shape[-2:]
        store(R, np.zeros(R._sizes, dtype=values.dtype))
        if compute_q:
            eye = np.eye(m, Q._sizes[-1], dtype=values.dtype)
            store(Q, np.broadcast_to(eye, Q._sizes))
        return
    if compute_q:
        q, r = np.linalg.qr(values, mode="reduced" if reduced else "complete")
        store(Q, q)
    else:
        r = np.linalg.qr(values, mode="r") if values.ndim == 2 else _batched_r(values)
    store(R, r)


def _batched_r(values):
    return np.linalg.qr(values, mode="reduced")[1]


def _linalg_svd_out(meta, A, full_matrices, compute_uv, driver, U, S, Vh) -> None:
    """gesdd (NumPy's svd), the singular values only when compute_uv is false."""
    _not_implemented("linalg_svd_cpu", A)
    values = A.ndarray()
    if values.size == 0:
        if compute_uv:
            for out in (U, Vh):
                m, n = out._sizes[-2:]
                store(out, np.broadcast_to(np.eye(m, n, dtype=values.dtype), out._sizes))
        return
    if compute_uv:
        u, s, vh = np.linalg.svd(values, full_matrices=full_matrices)
        store(U, u)
        store(Vh, vh)
    else:
        s = np.linalg.svd(values, compute_uv=False)
    store(S, s)


def _linalg_eigh_out(meta, A, UPLO, compute_v, eigenvalues, eigenvectors) -> None:
    """syevd / heevd (NumPy's eigh and eigvalsh) on the UPLO triangle."""
    _not_implemented("linalg_eigh_cpu", A)
    values = A.ndarray()
    if values.size == 0:
        if compute_v:
            store(eigenvectors, np.zeros(eigenvectors._sizes, dtype=values.dtype))
        return
    if compute_v:
        w, v = np.linalg.eigh(values, UPLO=UPLO)
        store(eigenvectors, v)
    else:
        w = np.linalg.eigvalsh(values, UPLO=UPLO)
    store(eigenvalues, w)


# -- _linalg_check_errors ------------------------------------------------------------------


class _LinAlgError(RuntimeError):
    """torch._C._LinAlgError (torch.linalg.LinAlgError): a LAPACK info code PyTorch reports."""


_LinAlgError.__module__ = "torch._C"

_MESSAGES = (
    ("inv", "The diagonal element {info} is zero, the inversion could not be completed "
            "because the input matrix is singular."),
    ("solve", "The solver failed because the input matrix is singular."),
    ("cholesky", "The factorization could not be completed because the input is not "
                 "positive-definite (the leading minor of order {info} is not "
                 "positive-definite)."),
    ("svd", "The algorithm failed to converge because the input matrix is ill-conditioned "
            "or has too many repeated singular values (error code: {info})."),
    ("eig", "The algorithm failed to converge because the input matrix is ill-conditioned "
            "or has too many repeated eigenvalues (error code: {info})."),
    ("lstsq", "The least squares solution could not be computed because the input matrix "
              "does not have full rank (error code: {info})."),
    ("lu_factor", "U[{info},{info}] is zero and using it on lu_solve would result in a "
                  "division by zero. If you still want to perform the factorization, consider "
                  "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"),
)  # fmt: skip


def check_errors_info(codes: np.ndarray, api_name: str, is_matrix: bool) -> None:
    """_linalg_check_errors: the first non-zero info code, as PyTorch words it."""
    flat = np.asarray(codes).reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size == 0:
        return
    index = int(bad[0])
    info = int(flat[index])
    where = "" if is_matrix else f": (Batch element {index})"
    if info < 0:
        raise RuntimeError(
            f"{api_name}{where}: Argument {-info} has illegal value. Most certainly there is a "
            "bug in the implementation calling the backend library."
        )
    for key, text in _MESSAGES:
        if key in api_name:
            error = RuntimeError if key == "lu_factor" else _LinAlgError  # TORCH_CHECK there
            raise error(f"{api_name}{where}: " + text.format(info=info))
    raise RuntimeError(f"{api_name}: Unknown error code: {info}.")
