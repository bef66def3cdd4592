"""CPU kernels of the LU family: linalg_lu_factor_ex, linalg_lu, lu_unpack, linalg_lu_solve,
and the composites above them (linalg_lu_factor, _lu_with_info, lu_solve).

Layer: aten/native. In: the meta function's StructuredMeta, the schema's arguments and the
out tensors. Out: the out tensors filled. Mirrors BatchLinearAlgebra.cpp's
linalg_lu_factor_ex_out (getrf per matrix, through SciPy's LAPACK wrapper, so the pivots are
LAPACK's own), linalg_lu_out (lu_factor_ex, then lu_unpack), lu_unpack_out
(unpack_pivots_cpu_kernel's row swaps, then a permutation matrix) and linalg_lu_solve_out
(getrs with trans = N, T or C; a right solve as the adjoint left one).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember._c10.warning import torch_warn_once
from ember.aten.native import at
from ember.aten.native.linalg_decomp import _lapack, _not_implemented, check_errors_info
from ember.aten.native.reduction import store

__all__ = [
    "linalg_lu_factor_ex_out", "linalg_lu_out", "lu_unpack_out", "linalg_lu_solve_out",
    "linalg_lu_factor", "linalg_lu_factor_out", "_lu_with_info", "lu_solve", "lu_solve_out",
    "lu_factor_values",
]  # fmt: skip


def lu_factor_values(values: np.ndarray):
    """getrf on each m x n matrix: LU, 1-based int32 pivots (min(m, n) each), int32 info."""
    batch, (m, n) = values.shape[:-2], values.shape[-2:]
    lu = np.empty(values.shape, dtype=values.dtype)
    pivots = np.empty(batch + (min(m, n),), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    if values.size == 0:
        return lu, pivots, info
    getrf = _lapack("getrf", values)
    for index in np.ndindex(*batch):
        factor, piv, code = getrf(np.asfortranarray(values[index]))
        lu[index], pivots[index], info[index] = factor, piv + 1, code
    return lu, pivots, info


def linalg_lu_factor_ex_out(meta, A, pivot, check_errors, LU, pivots, info) -> None:  # noqa: N803
    if A.numel() == 0:  # no LAPACK call: no dtype or pivot check, info all zero
        store(info, np.zeros(info._sizes, dtype=np.int32))
        return
    _not_implemented("lu_cpu", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, codes = lu_factor_values(A.ndarray())
    if check_errors:
        check_errors_info(codes, "torch.linalg.lu_factor_ex", A.dim() == 2)
    store(LU, lu)
    store(pivots, piv)
    store(info, codes)


def _permutations(pivots: np.ndarray, m: int) -> np.ndarray:
    """unpack_pivots_cpu_kernel: the identity of m rows, row i swapped with pivots[i] - 1."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    perm = np.broadcast_to(np.arange(m, dtype=np.int64), batch + (m,)).copy()
    for index in np.ndindex(*batch):
        row, piv = perm[index], pivots[index]
        for i in range(k):
            target = int(piv[i]) - 1
            if not 0 <= target < m:
                raise RuntimeError(
                    "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                    "Did you properly pass the result of lu_factor?"
                )
            row[i], row[target] = row[target], row[i]
    return perm


def _unpack(lu: np.ndarray, pivots, unpack_data, unpack_pivots, P, L, U) -> None:  # noqa: N803
    m, n = lu.shape[-2:]
    k = min(m, n)
    if unpack_data:
        lower = np.tril(lu[..., :, :k], -1)
        idx = np.arange(k)
        lower[..., idx, idx] = 1
        store(L, lower)
        store(U, np.triu(lu[..., :k, :]))
    if unpack_pivots:
        batch = P._sizes[:-2]
        piv = np.asarray(pivots)
        if piv.shape[:-1] != batch or (piv.ndim and piv.shape[-1] != k):
            try:
                piv = np.broadcast_to(piv, batch + (k,))
            except ValueError:
                raise RuntimeError(
                    "torch.lu_unpack: ember expects LU_pivots of shape LU.shape[:-2] + "
                    f"(min(m, n),) = {list(batch + (k,))}, got {list(pivots.shape)}"
                ) from None
        perm = _permutations(piv, m)
        matrix = np.zeros(batch + (m, m), dtype=lu.dtype)
        np.put_along_axis(matrix, perm[..., None, :], 1, axis=-2)
        store(P, matrix)


def lu_unpack_out(meta, LU_data, LU_pivots, unpack_data, unpack_pivots, P, L, U) -> None:  # noqa: N803
    pivots = LU_pivots.ndarray() if unpack_pivots else None
    _unpack(LU_data.ndarray(), pivots, unpack_data, unpack_pivots, P, L, U)


def linalg_lu_out(meta, A, pivot, P, L, U) -> None:  # noqa: N803
    """lu_factor_ex into the larger of L and U, then lu_unpack."""
    if A.numel() == 0:
        if pivot:
            m = A._sizes[-2]
            store(P, np.broadcast_to(np.eye(m, dtype=A.dtype.np_dtype), P._sizes))
        return
    _not_implemented("lu_cpu", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, _ = lu_factor_values(A.ndarray())
    _unpack(lu, piv, True, pivot, P, L, U)


def _getrs(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, trans: int) -> np.ndarray:
    """getrs per matrix of the broadcast batch, after the pivots are checked."""
    n = lu.shape[-1]
    if (piv > n).any() or (piv < 1).any():
        raise RuntimeError(
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). "
            "Did you properly pass the result of lu_factor?"
        )
    x = np.empty(b.shape, dtype=lu.dtype)
    getrs = _lapack("getrs", lu)
    with np.errstate(all="ignore"):
        for index in np.ndindex(*b.shape[:-2]):
            x[index], _ = getrs(lu[index], piv[index] - 1, b[index], trans=trans)
    return x


def linalg_lu_solve_out(meta, LU, pivots, B, left, adjoint, out) -> None:  # noqa: N803
    if LU.numel() == 0 or B.numel() == 0:
        return
    sizes = out._sizes
    n = LU._sizes[-1]
    batch = sizes[:-2]
    lu = np.broadcast_to(LU.ndarray(), batch + (n, n))
    piv = np.broadcast_to(pivots.ndarray(), batch + (n,))
    b = np.broadcast_to(B.ndarray(), sizes)
    complex_ = LU.dtype.is_complex
    if left:
        trans = (2 if complex_ else 1) if adjoint else 0
        store(out, _getrs(lu, piv, b, trans))
        return
    # X A = B  <=>  A^H X^H = B^H (A X = B's adjoint with adjoint flipped)
    trans = 0 if adjoint else (2 if complex_ else 1)
    bh = np.swapaxes(b, -1, -2).conj()
    store(out, np.swapaxes(_getrs(lu, piv, bh, trans), -1, -2).conj())


# -- the composites -------------------------------------------------------------------------


def _empty(t, dtype):
    return at.empty_memory_format([0], dtype, strided, t.device, None, None)


def linalg_lu_factor(A, pivot):  # noqa: N803
    LU, pivots, info = at.linalg_lu_factor_ex(A, pivot, False)  # noqa: N806
    at._linalg_check_errors(info, "torch.linalg.lu_factor", A.dim() == 2)
    return LU, pivots


def linalg_lu_factor_out(A, pivot, LU, pivots):  # noqa: N803
    info = _empty(A, dtypes.int32)
    at.linalg_lu_factor_ex_out(A, pivot, False, LU, pivots, info)
    at._linalg_check_errors(info, "torch.linalg.lu_factor", A.dim() == 2)
    return LU, pivots


_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)"
)


def _lu_with_info(self, pivot, check_errors):
    torch_warn_once(_LU_DEPRECATED, "aten/src/ATen/native/BatchLinearAlgebra.cpp:2073")
    return at.linalg_lu_factor_ex(self, pivot, False)


def lu_solve(self, LU_data, LU_pivots):  # noqa: N803
    return at.linalg_lu_solve(LU_data, LU_pivots, self, True, False)


def lu_solve_out(self, LU_data, LU_pivots, out):  # noqa: N803
    return at.linalg_lu_solve_out(LU_data, LU_pivots, self, True, False, out)
