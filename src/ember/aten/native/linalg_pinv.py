"""linalg.pinv (and pinverse), linalg.matrix_rank and linalg.cond, composed of ember's operators
as PyTorch composes them.

Layer: aten/native. In: the schema's arguments. Out: tensors computed through `at`: the
tolerances as 0-d float64 tensors (get_atol_rtol's full / zeros), svd or linalg_eigh inside
linalg_pinv.atol_rtol_tensor (its own kernel, with LinalgPinvBackward0 above it), svdvals or
eigvalsh and a count above the tolerance for matrix_rank, svdvals or matrix norms of A and
its inverse for cond. Mirrors ATen/native/LinearAlgebra.cpp (get_atol_rtol, linalg_pinv,
matrix_rank_impl, linalg_cond, _linalg_cond_helper) and LinearAlgebraUtils.h's checks.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.meta.linalg_decomp import check_is_matrix, square_check_inputs
from ember.aten.native import at
from ember.aten.native.linalg_cholesky import _check_compatible, _copy_into
from ember.aten.native.resize import resize_output
from ember.aten.structured import _can_cast
from ember.aten.tensor_subclass_like import is_tensor_subclass_like

__all__ = [
    "linalg_pinv_atol_rtol_tensor", "linalg_pinv_atol_rtol_tensor_out",
    "linalg_pinv_atol_rtol_float", "linalg_pinv_atol_rtol_float_out", "linalg_pinv",
    "linalg_pinv_rcond_tensor", "linalg_pinv_out", "linalg_pinv_out_rcond_tensor", "pinverse",
    "linalg_matrix_rank_atol_rtol_tensor", "linalg_matrix_rank_atol_rtol_tensor_out",
    "linalg_matrix_rank_atol_rtol_float", "linalg_matrix_rank_atol_rtol_float_out",
    "linalg_matrix_rank", "linalg_matrix_rank_out", "linalg_matrix_rank_tol_tensor",
    "linalg_matrix_rank_out_tol_tensor", "linalg_cond", "linalg_cond_out", "linalg_cond_p_str",
    "linalg_cond_p_str_out",
]  # fmt: skip


# -- tolerances ------------------------------------------------------------------------------


def _scalar(value, device):
    return at.full([], value, dtypes.float64, strided, device, None)


def _zeros(device, dtype=dtypes.float64):
    return at.zeros([], dtype, strided, device, None)


def _epsilon(dtype) -> float:
    """_get_epsilon: float and double only."""
    if dtype is dtypes.float32:
        return float(np.finfo(np.float32).eps)
    if dtype is dtypes.float64:
        return float(np.finfo(np.float64).eps)
    raise RuntimeError("This function doesn't handle types other than float and double")


def _check_not_complex(tol, name: str, label: str) -> None:
    """checkNotComplexTolerance."""
    if tol.dtype.is_complex:
        raise RuntimeError(
            f"{name}: {label} tensor of complex type is not supported. Got "
            f"{dtypes.scalar_type_name(tol.dtype)}"
        )


def _default_rtol(input) -> float:  # noqa: A002 (aten's name)
    return _epsilon(input.dtype.to_real()) * max(input._sizes[-1], input._sizes[-2])


def _atol_rtol_tensors(input, atol, rtol, name: str):  # noqa: A002
    """get_atol_rtol for optional tensors: atol 0, rtol eps * max(m, n) (0 where atol > 0)."""
    given = atol
    if atol is None:
        atol = _zeros(input.device)
    _check_not_complex(atol, name, "atol")
    if rtol is not None:
        _check_not_complex(rtol, name, "rtol")
        return atol, rtol
    default = _scalar(_default_rtol(input), input.device)
    if given is None:
        return atol, default
    zero = _zeros(input.device)  # C++ evaluates where's arguments right to left
    return atol, at.where_self(at.gt_Scalar(given, 0), zero, default)


def _atol_rtol_floats(input, atol, rtol):  # noqa: A002
    """get_atol_rtol for optional floats, as two 0-d float64 tensors."""
    atol_value = 0.0 if atol is None else atol
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0.0 else _default_rtol(input)
    return _scalar(atol_value, input.device), _scalar(rtol, input.device)


# -- pinv ------------------------------------------------------------------------------------

_PINV_TYPES = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def _mh(t):
    t = at.transpose_int(t, -2, -1)
    return at.conj_physical(t) if t.dtype.is_complex else t


def linalg_pinv_atol_rtol_tensor(self, atol, rtol, hermitian):
    if self.dtype not in _PINV_TYPES or self.dim() < 2:
        sizes = "[" + ", ".join(str(s) for s in self._sizes) + "]"
        raise RuntimeError(
            f"linalg.pinv({dtypes.scalar_type_name(self.dtype)}{{{sizes}}}): expected a tensor "
            "with 2 or more dimensions of float, double, cfloat or cdouble types"
        )
    atol_, rtol_ = _atol_rtol_tensors(self, atol, rtol, "torch.linalg.pinv")
    if self.numel() == 0:
        U, S, V = at.svd(self, True, True)  # noqa: N806
        return at.matmul(V * at.unsqueeze(at.reciprocal(S), -2), _mh(U))
    if not hermitian:
        U, S, V = at.svd(self, True, True)  # noqa: N806
        max_val = at.narrow(S, -1, 0, 1)
        S_abs = S  # noqa: N806
        basis, right = V, _mh(U)
    else:
        S, U = at.linalg_eigh(self, "L")  # noqa: N806
        S_abs = at.abs(S)  # noqa: N806
        max_val = at.amax(S_abs, [-1], True)
        basis, right = U, _mh(U)
    scaled = at.unsqueeze(rtol_, -1) * max_val  # C++ evaluates the right operand first
    tol = at.max_other(at.unsqueeze(atol_, -1), scaled)
    zero = at.zeros([], S.dtype, strided, S.device, None)
    S_pinv = at.where_self(at.gt_Tensor(S_abs, tol), at.reciprocal(S), zero)  # noqa: N806
    S_pinv = at.to_dtype(S_pinv, self.dtype, False, False, None)  # noqa: N806
    return at.matmul(basis * at.unsqueeze(S_pinv, -2), right)


def linalg_pinv_atol_rtol_tensor_out(self, atol, rtol, hermitian, out):
    _check_compatible("linalg.pinv", out, self)
    return _copy_into(out, at.linalg_pinv_atol_rtol_tensor(self, atol, rtol, hermitian))


def linalg_pinv_atol_rtol_float(self, atol, rtol, hermitian):
    atol_, rtol_ = _atol_rtol_floats(self, atol, rtol)
    return at.linalg_pinv_atol_rtol_tensor(self, atol_, rtol_, hermitian)


def linalg_pinv_atol_rtol_float_out(self, atol, rtol, hermitian, out):
    _check_compatible("linalg.pinv", out, self)
    return _copy_into(out, at.linalg_pinv_atol_rtol_float(self, atol, rtol, hermitian))


def linalg_pinv(self, rcond, hermitian):
    return at.linalg_pinv_atol_rtol_float(self, 0.0, rcond, hermitian)


def linalg_pinv_rcond_tensor(self, rcond, hermitian):
    _check_not_complex(rcond, "torch.linalg.pinv", "rcond")
    return at.linalg_pinv_atol_rtol_tensor(self, _zeros(self.device), rcond, hermitian)


def linalg_pinv_out_rcond_tensor(self, rcond, hermitian, out):
    _check_compatible("linalg.pinv", out, self)
    return _copy_into(out, at.linalg_pinv_rcond_tensor(self, rcond, hermitian))


def linalg_pinv_out(self, rcond, hermitian, out):
    return at.linalg_pinv_out_rcond_tensor(self, _scalar(rcond, self.device), hermitian, out)


def pinverse(self, rcond):
    return at.linalg_pinv(self, rcond, False)


# -- matrix_rank -----------------------------------------------------------------------------

_RANK = "torch.linalg.matrix_rank"


def _rank_result(input):  # noqa: A002
    check_is_matrix(input, _RANK, "input")
    return at.empty_memory_format(list(input._sizes[:-2]), dtypes.int64, strided, input.device,
                                  None, None)  # fmt: skip


def _rank(input, atol, rtol, hermitian, result):  # noqa: A002
    """matrix_rank_impl: the singular (or absolute eigen) values above max(atol, rtol * max)."""
    atol, rtol = _atol_rtol_tensors(input, atol, rtol, _RANK)
    if not _can_cast(dtypes.int64, result.dtype):
        raise RuntimeError(
            f"{_RANK}: Expected result to be safely castable from Long dtype, but got result "
            f"with dtype {dtypes.scalar_type_name(result.dtype)}"
        )
    if input.numel() == 0:
        return at.fill__Scalar(result, 0)
    if not hermitian:
        S = at.linalg_svdvals(input, None)  # noqa: N806
        max_S = at.narrow(S, -1, 0, 1)  # noqa: N806
    else:
        S = at.abs(at.linalg_eigvalsh(input, "L"))  # noqa: N806
        max_S = at.amax(S, [-1], True)  # noqa: N806
    scaled = at.unsqueeze(rtol, -1) * max_S  # C++ evaluates the right operand first
    tol = at.max_other(at.unsqueeze(atol, -1), scaled)
    above = at.gt_Tensor(S, tol)
    if is_tensor_subclass_like(input):
        return at.sum_dim_IntList(above, [-1], False, None)
    return at.sum_IntList_out(above, [-1], False, None, result)


def _rank_out(input, atol, rtol, hermitian, out):  # noqa: A002
    check_is_matrix(input, _RANK, "input")
    resize_output(out, input._sizes[:-2])
    return _rank(input, atol, rtol, hermitian, out)


def linalg_matrix_rank_atol_rtol_tensor(input, atol, rtol, hermitian):  # noqa: A002
    result = _rank_result(input)
    return _rank(input, atol, rtol, hermitian, result)


def linalg_matrix_rank_atol_rtol_tensor_out(input, atol, rtol, hermitian, out):  # noqa: A002
    return _rank_out(input, atol, rtol, hermitian, out)


def linalg_matrix_rank_atol_rtol_float(self, atol, rtol, hermitian):
    result = _rank_result(self)
    atol_, rtol_ = _atol_rtol_floats(self, atol, rtol)
    return _rank(self, atol_, rtol_, hermitian, result)


def linalg_matrix_rank_atol_rtol_float_out(self, atol, rtol, hermitian, out):
    atol_, rtol_ = _atol_rtol_floats(self, atol, rtol)
    return _rank_out(self, atol_, rtol_, hermitian, out)


def linalg_matrix_rank(self, tol, hermitian):
    result = _rank_result(self)
    atol_, rtol_ = _atol_rtol_floats(self, tol, 0.0)
    return _rank(self, atol_, rtol_, hermitian, result)


def linalg_matrix_rank_out(self, tol, hermitian, out):
    atol_, rtol_ = _atol_rtol_floats(self, tol, 0.0)
    return _rank_out(self, atol_, rtol_, hermitian, out)


def linalg_matrix_rank_tol_tensor(input, tol, hermitian):  # noqa: A002
    result = _rank_result(input)
    zero = at.zeros([], tol.dtype, strided, tol.device, None)
    return _rank(input, tol, zero, hermitian, result)


def linalg_matrix_rank_out_tol_tensor(input, tol, hermitian, out):  # noqa: A002
    zero = at.zeros([], tol.dtype, strided, tol.device, None)
    return _rank_out(input, tol, zero, hermitian, out)


# -- cond ------------------------------------------------------------------------------------


def _cond_helper(self, ord, is_str: bool):  # noqa: A002
    """inv_ex, +inf where singular, norm(A) * norm(A^-1), nan_to_num_ for 0 * inf."""
    inverse, info = at.linalg_inv_ex(self, False)
    at.unsqueeze_(at.unsqueeze_(info, -1), -1)
    at.masked_fill__Scalar(inverse, at.gt_Scalar(info, 0), math.inf)
    if is_str:
        norm_self = at.linalg_matrix_norm_str_ord(self, ord, [-2, -1], False, None)
        norm_inverse = at.linalg_matrix_norm_str_ord(inverse, ord, [-2, -1], False, None)
    else:
        norm_self = at.linalg_matrix_norm(self, ord, [-2, -1], False, None)
        norm_inverse = at.linalg_matrix_norm(inverse, ord, [-2, -1], False, None)
    result = norm_self * norm_inverse
    return at.nan_to_num_(result, math.inf, math.inf, -math.inf)


def _empty_cond(self):
    return at.zeros(list(self._sizes[:-2]), self.dtype.to_real(), strided, self.device, None)


def _ord_text(ord) -> str:  # noqa: A002
    """std::to_string of the order: an int as is, a double with six decimals."""
    if isinstance(ord, bool) or not isinstance(ord, float):
        return str(int(ord))
    if math.isinf(ord):
        return "inf" if ord > 0 else "-inf"
    return f"{ord:.6f}"


def linalg_cond(self, p):
    if self.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p  # noqa: A001
    value = float(ord)
    if abs(value) not in (1.0, 2.0, math.inf):
        shown = int(value) if value == int(value) else value
        raise RuntimeError(f"linalg.cond got an invalid norm type: {shown}")
    if self.numel() == 0:
        return _empty_cond(self)
    if abs(value) == 2.0:
        S = at.linalg_svdvals(self, None)  # noqa: N806
        s_max, s_min = at.narrow(S, -1, 0, 1), at.narrow(S, -1, -1, 1)
        result = s_min / s_max if value == -2.0 else s_max / s_min
        return at.squeeze_dim(result, -1)
    square_check_inputs(self, f"linalg.cond(ord={_ord_text(ord)})")
    return _cond_helper(self, ord, False)


def _check_cond_out(self, out):
    if out.device != self.device:
        raise RuntimeError(
            "linalg.cond: Expected result and input tensors to be on the same device, but got "
            f"result on {out.device} and input on {self.device}"
        )
    real = self.dtype.to_real()
    if not _can_cast(real, out.dtype):
        raise RuntimeError(
            f"linalg.cond: Expected result to be safely castable from "
            f"{dtypes.scalar_type_name(real)} dtype, but got result with dtype "
            f"{dtypes.scalar_type_name(out.dtype)}"
        )


def linalg_cond_out(self, p, out):
    _check_cond_out(self, out)
    return _copy_into(out, at.linalg_cond(self, p))


def linalg_cond_p_str(self, p):
    square_check_inputs(self, f"linalg.cond(ord={p})")
    if p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if self.numel() == 0:
        return _empty_cond(self)
    if p == "nuc":
        S = at.linalg_svdvals(self, None)  # noqa: N806
        inverse_total = at.sum_dim_IntList(at.reciprocal(S), [-1], False, None)
        return at.sum_dim_IntList(S, [-1], False, None) * inverse_total
    return _cond_helper(self, p, True)


def linalg_cond_p_str_out(self, p, out):
    _check_cond_out(self, out)
    return _copy_into(out, at.linalg_cond_p_str(self, p))
