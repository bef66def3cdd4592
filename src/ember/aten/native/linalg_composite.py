"""The CompositeImplicitAutograd linalg functions: det, slogdet, logdet, inv, solve,
cholesky, svd, svdvals, eigh, eigvalsh, and _linalg_check_errors.

Layer: aten/native. In: the schema's arguments. Out: tensors computed by calling the
structured decompositions through `at`, so autograd records their nodes and a dispatch mode
sees PyTorch's operators (aten._linalg_det for torch.linalg.det, aten.linalg_inv_ex and
aten._linalg_check_errors for torch.linalg.inv). Mirrors the composites of
ATen/native/BatchLinearAlgebra.cpp and LinearAlgebra.cpp (linalg_det, logdet, linalg_inv,
linalg_solve, linalg_cholesky, linalg_svdvals, svd, linalg_eigvalsh).
"""

from __future__ import annotations

import math

from ember._c10 import dtypes
from ember._c10.grad_mode import is_grad_enabled
from ember._c10.layout import strided
from ember._c10.warning import torch_warn_once
from ember.aten.meta.linalg_decomp import check_floating_or_complex, square_check_inputs
from ember.aten.native import at
from ember.aten.native.linalg_decomp import check_errors_info
from ember.aten.native.resize import resize_output
from ember.aten.tensor_subclass_like import is_tensor_subclass_like

__all__ = [
    "linalg_det", "linalg_det_out", "det", "linalg_slogdet", "linalg_slogdet_out", "slogdet",
    "slogdet_out", "logdet", "_linalg_check_errors", "linalg_inv", "linalg_inv_out", "inverse",
    "inverse_out", "linalg_solve_ex", "linalg_solve_ex_out", "linalg_solve", "linalg_solve_out",
    "linalg_cholesky", "linalg_cholesky_out", "linalg_svd", "linalg_svd_U", "linalg_svdvals",
    "linalg_svdvals_out", "svd", "svd_U", "linalg_eigh", "linalg_eigh_eigvals",
    "linalg_eigvalsh", "linalg_eigvalsh_out", "qr", "qr_Q",
]  # fmt: skip


def _empty(t, dtype=None):
    return at.empty_memory_format([0], dtype or t.dtype, strided, t.device, None, None)


def _copy_into(out, result):
    resize_output(out, result._sizes)
    at.copy_(out, result, False)
    return out


def may_require_grad(t) -> bool:
    """_may_require_fw_or_bw_grad: grad mode on and t requires grad, or a subclass."""
    return (is_grad_enabled() and t.requires_grad) or is_tensor_subclass_like(t)


def mH(t):  # noqa: N802 (Tensor.mH)
    """transpose, then conj: PyTorch's conj is a view with the conjugate bit, which ember does
    not have; conj_physical gives the same values in a new tensor."""
    t = at.transpose_int(t, -2, -1)
    return at.conj_physical(t) if t.dtype.is_complex else t


# -- det, slogdet, logdet --------------------------------------------------------------------


def linalg_det(A):
    return at._linalg_det(A)[0]


def linalg_det_out(A, out):
    at._linalg_det_result(A, out, _empty(A), _empty(A, dtypes.int32))
    return out


def det(self):
    return at.linalg_det(self)


def linalg_slogdet(A):
    sign, logabsdet, _, _ = at._linalg_slogdet(A)
    return sign, logabsdet


def linalg_slogdet_out(A, sign, logabsdet):
    at._linalg_slogdet_sign(A, sign, logabsdet, _empty(A), _empty(A, dtypes.int32))
    return sign, logabsdet


def slogdet(self):
    return at.linalg_slogdet(self)


def slogdet_out(self, sign, logabsdet):
    return at.linalg_slogdet_out(self, sign, logabsdet)


def logdet(self):
    """log(det): the log of the sign plus logabsdet for complex, NaN where det < 0."""
    square_check_inputs(self, "logdet")
    check_floating_or_complex(self, "logdet", allow_low_precision=False)
    sign, logabsdet = at.linalg_slogdet(self)
    if self.dtype.is_complex:
        return at.add_Tensor(at.log(sign), logabsdet, 1)
    return at.where_ScalarSelf(at.eq_Scalar(sign, -1.0), math.nan, logabsdet)


# -- inv, solve, cholesky --------------------------------------------------------------------


def _linalg_check_errors(info, api_name, is_matrix):
    if info.numel():
        check_errors_info(info.ndarray(), api_name, is_matrix)


def linalg_inv(A):
    result, info = at.linalg_inv_ex(A, False)
    at._linalg_check_errors(info, "linalg.inv", A.dim() == 2)
    return result


def linalg_inv_out(A, out):
    info = _empty(A, dtypes.int32)
    at.linalg_inv_ex_inverse(A, False, out, info)
    at._linalg_check_errors(info, "linalg.inv", A.dim() == 2)
    return out


def inverse(self):
    return at.linalg_inv(self)


def inverse_out(self, out):
    return at.linalg_inv_out(self, out)


def linalg_solve_ex(A, B, left, check_errors):
    result, _, _, info = at._linalg_solve_ex(A, B, left, check_errors)
    return result, info


def linalg_solve_ex_out(A, B, left, check_errors, result, info):
    lu, pivots = _empty(A), _empty(A, dtypes.int32)
    at._linalg_solve_ex_result(A, B, left, check_errors, result, lu, pivots, info)
    return result, info


def linalg_solve(A, B, left):
    result, _, _, info = at._linalg_solve_ex(A, B, left, False)
    at._linalg_check_errors(info, "torch.linalg.solve", A.dim() == 2)
    return result


def linalg_solve_out(A, B, left, out):
    info = _empty(A, dtypes.int32)
    lu, pivots = _empty(A), _empty(A, dtypes.int32)
    at._linalg_solve_ex_result(A, B, left, False, out, lu, pivots, info)
    at._linalg_check_errors(info, "torch.linalg.solve", A.dim() == 2)
    return out


def linalg_cholesky(self, upper):
    L, info = at.linalg_cholesky_ex(self, upper, False)
    at._linalg_check_errors(info, "linalg.cholesky", self.dim() == 2)
    return L


def linalg_cholesky_out(self, upper, out):
    info = _empty(self, dtypes.int32)
    at.linalg_cholesky_ex_L(self, upper, False, out, info)
    at._linalg_check_errors(info, "linalg.cholesky", self.dim() == 2)
    return out


# -- svd, eigh -------------------------------------------------------------------------------


def linalg_svd(A, full_matrices, driver):
    return at._linalg_svd(A, full_matrices, True, driver)


def linalg_svd_U(A, full_matrices, driver, U, S, Vh):  # noqa: N802, N803 (aten's names)
    return at._linalg_svd_U(A, full_matrices, True, driver, U, S, Vh)


def linalg_svdvals(A, driver):
    return at._linalg_svd(A, False, may_require_grad(A), driver)[1]


def linalg_svdvals_out(A, driver, out):
    U, Vh = _empty(A), _empty(A)  # noqa: N806
    at._linalg_svd_U(A, False, False, driver, U, out, Vh)
    return out


def _check_svd_input(self) -> None:
    if self.dim() < 2:
        raise RuntimeError(
            "linalg.svd: input should have at least 2 dimensions, but has "
            f"{self.dim()} dimensions instead"
        )


def svd(self, some, compute_uv):
    """torch.svd: V rather than Vh; without compute_uv, U and V are zeros of full size."""
    _check_svd_input(self)
    if compute_uv:
        U, S, Vh = at.linalg_svd(self, not some, None)  # noqa: N806
        return U, S, mH(Vh)
    S = at.linalg_svdvals(self, None)  # noqa: N806
    m, n = self._sizes[-2:]
    batch = list(self._sizes[:-2])
    U = at.zeros(batch + [m, m], self.dtype, strided, self.device, None)  # noqa: N806
    Vh = at.zeros(batch + [n, n], self.dtype, strided, self.device, None)  # noqa: N806
    return U, S, mH(Vh)


def svd_U(self, some, compute_uv, U, S, V):  # noqa: N802, N803 (aten's names)
    """svd_out: linalg_svd_out into U, S, V, then V transposed (and conjugated) in place;
    without compute_uv, svdvals into S and U, V resized and zeroed. PyTorch writes the out
    tensors in place before its out= autograd check sees them: an out leaf that requires grad
    gets check_inplace's error."""
    _check_svd_input(self)
    if compute_uv:
        if is_grad_enabled() and not self.requires_grad:
            for out in (U, S, V):
                if out.requires_grad and out.grad_fn is None:
                    raise RuntimeError(
                        "a leaf Variable that requires grad is being used in an in-place operation."
                    )
        at.linalg_svd_U(self, not some, None, U, S, V)
        at.transpose_(V, -2, -1)
        if V.dtype.is_complex:
            at.conj_physical_(V)
        return U, S, V
    at.linalg_svdvals_out(self, None, S)
    m, n = self._sizes[-2:]
    batch = list(self._sizes[:-2])
    at.zero_(at.resize_(U, batch + [m, m], None))
    at.zero_(at.resize_(V, batch + [n, n], None))
    return U, S, V


def linalg_eigh(self, UPLO):  # noqa: N803
    return at._linalg_eigh(self, UPLO, True)


def linalg_eigh_eigvals(self, UPLO, eigvals, eigvecs):  # noqa: N803
    return at._linalg_eigh_eigenvalues(self, UPLO, True, eigvals, eigvecs)


def linalg_eigvalsh(self, UPLO):  # noqa: N803
    return at._linalg_eigh(self, UPLO, may_require_grad(self))[0]


def linalg_eigvalsh_out(self, UPLO, out):  # noqa: N803
    at._linalg_eigh_eigenvalues(self, UPLO, False, out, _empty(self))
    return out


_QR_DEPRECATED = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
    "'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, "
    "'reduced' if some else 'complete')"
)


def qr(self, some):
    torch_warn_once(_QR_DEPRECATED, "aten/src/ATen/native/BatchLinearAlgebra.cpp:2505")
    return at.linalg_qr(self, "reduced" if some else "complete")


def qr_Q(self, some, Q, R):  # noqa: N802, N803 (aten's names)
    torch_warn_once(_QR_DEPRECATED, "aten/src/ATen/native/BatchLinearAlgebra.cpp:2514")
    return at.linalg_qr_out(self, "reduced" if some else "complete", Q, R)
