"""The deprecated norms torch's namespace still has: frobenius_norm, nuclear_norm,
norm_except_dim; and vander.

Layer: aten/native (CompositeImplicitAutograd: through `at`, so autograd records the
operators they call). In: the full schema-ordered arguments. Out: the norm / the
Vandermonde matrix. Mirrors ATen/native/LinearAlgebra.cpp (frobenius_norm through
at::norm, nuclear_norm through linalg_matrix_norm 'nuc', each with its once-per-process
deprecation warning; vander's fill / cumprod / flip), and WeightNorm.cpp
(norm_except_dim: the norm over every dimension but one, shaped for broadcasting).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.warning import torch_warn_once
from ember.aten.native import at

__all__ = [
    "frobenius_norm_dim",
    "frobenius_norm_out",
    "norm_except_dim",
    "nuclear_norm",
    "nuclear_norm_dim",
    "nuclear_norm_dim_out",
    "nuclear_norm_out",
    "vander",
]

_FROBENIUS = (
    "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be "
    "removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` "
    "instead"
)
_NUCLEAR = (
    "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
    "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
    "keepdim)` instead"
)


def _frobenius_checks(dim, source: str) -> None:
    torch_warn_once(_FROBENIUS, f"aten/src/ATen/native/LinearAlgebra.cpp:{source}")
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")


def frobenius_norm_dim(self, dim, keepdim):
    _frobenius_checks(dim, "3175")
    return at.norm_ScalarOpt_dim(self, 2.0, dim, keepdim)


def frobenius_norm_out(self, dim, keepdim, out):
    _frobenius_checks(dim, "3195")
    return at.norm_out(self, 2.0, dim, keepdim, out)


def _nuclear(self, dim, keepdim, source: str):
    torch_warn_once(_NUCLEAR, f"aten/src/ATen/native/LinearAlgebra.cpp:{source}")
    return at.linalg_matrix_norm_str_ord(self, "nuc", dim, keepdim, None)


def _nuclear_out(self, dim, keepdim, out, source: str):
    torch_warn_once(_NUCLEAR, f"aten/src/ATen/native/LinearAlgebra.cpp:{source}")
    return at.linalg_matrix_norm_str_ord_out(self, "nuc", dim, keepdim, None, out)


# each overload warns once from its own line, as TORCH_WARN_ONCE does (nuclear_norm shares
# its dim overload's)
def nuclear_norm(self, keepdim):
    return _nuclear(self, [-2, -1], keepdim, "3229")


def nuclear_norm_dim(self, dim, keepdim):
    return _nuclear(self, dim, keepdim, "3229")


def nuclear_norm_out(self, keepdim, out):
    return _nuclear_out(self, [-2, -1], keepdim, out, "3217")


def nuclear_norm_dim_out(self, dim, keepdim, out):
    return _nuclear_out(self, dim, keepdim, out, "3241")


def norm_except_dim(v, pow, dim):  # noqa: A002 (the schema's name)
    ndim = v.dim()
    if ndim == 0 and dim != -1:  # v.size(0)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if dim == -1:
        return at.norm_Scalar(v, pow)
    if dim == 0:
        shape = [1] * ndim
        shape[0] = v._sizes[0]
        flat = at.view(at.contiguous(v, 0), [v._sizes[0], -1])
        return at.view(at.norm_ScalarOpt_dim(flat, pow, [1], False), shape)
    if dim == ndim - 1:
        shape = [1] * ndim
        shape[-1] = v._sizes[-1]
        flat = at.view(at.contiguous(v, 0), [-1, v._sizes[-1]])
        return at.view(at.norm_ScalarOpt_dim(flat, pow, [0], False), shape)
    moved = at.norm_except_dim(at.transpose_int(v, 0, dim), pow, 0)
    return at.transpose_int(moved, 0, dim)


def vander(x, N, increasing):  # noqa: N803 (the schema's name)
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._sizes[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dtype = dtypes.promote_types(x.dtype, dtypes.int64)
    result = at.empty_memory_format([x._sizes[0], n], dtype, None, x.device, None, None)
    if n > 0:
        at.fill__Scalar(result, 1)
        if n > 1:
            tail = at.slice_Tensor(result, 1, 1, None, 1)
            at.copy_(tail, at.unsqueeze(x, 1), False)
            at.copy_(tail, at.cumprod(tail, 1, None), False)
    if not increasing:
        return at.flip(result, [1])
    return result
