"""linalg.norm and linalg.matrix_norm: composites over vector_norm, amax / amin and svdvals.

Layer: aten/native. In: the schema's arguments. Out: a tensor computed through `at`, so a
dispatch mode sees the operators PyTorch's composites call (linalg_vector_norm then amax
for ord=1, permute and _linalg_svd for ord=2). Mirrors linalg_norm, linalg_matrix_norm and
_linalg_matrix_norm_checks of ATen/native/LinearAlgebra.cpp.
"""

from __future__ import annotations

import math

from ember.aten.meta.linalg_decomp import check_floating_or_complex, check_is_matrix
from ember.aten.meta.reduction import check_linalg_norm_dtype
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.resize import resize_output

__all__ = [
    "linalg_norm", "linalg_norm_ord_str", "linalg_norm_out", "linalg_norm_ord_str_out",
    "linalg_matrix_norm", "linalg_matrix_norm_out", "linalg_matrix_norm_str_ord",
    "linalg_matrix_norm_str_ord_out",
]  # fmt: skip

_NAME = "linalg.matrix_norm"


def _double_text(value: float) -> str:
    """A double as C++'s ostream prints it (6 significant digits)."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}"


def _dims_text(dims) -> str:
    dims = list(dims)
    return str(dims[0]) if len(dims) == 1 else "[" + ", ".join(map(str, dims)) + "]"


def _copy_into(out, result):
    resize_output(out, result._sizes)
    at.copy_(out, result, False)
    return out


def _matrix_norm_checks(A, dim, dtype, low_precision: bool) -> list:
    check_is_matrix(A, _NAME)
    check_floating_or_complex(A, _NAME, allow_low_precision=low_precision)
    if len(dim) != 2:
        raise RuntimeError(f"{_NAME}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    dim = [wrap_dim(d, A.dim()) for d in dim]
    if dim[0] == dim[1]:
        raise RuntimeError(f"{_NAME}: dims must be different. Got ({dim[0]}, {dim[1]})")
    check_linalg_norm_dtype(dtype, A.dtype, _NAME)
    return dim


def _backshift(dim0: int, dim1: int, ndim: int) -> list:
    """create_dim_backshift_permutation: the other dims in order, then dim0, dim1."""
    return [d for d in range(ndim) if d not in (dim0, dim1)] + [dim0, dim1]


def _reverse(permutation: list) -> list:
    reverse = [0] * len(permutation)
    for i, p in enumerate(permutation):
        reverse[p] = i
    return reverse


def _svdvals_of(A, dim, dtype):
    A_ = at.to_dtype(A, dtype, False, False, None) if dtype is not None else A  # noqa: N806
    permutation = _backshift(dim[0], dim[1], A_.dim())
    return at.linalg_svdvals(at.permute(A_, permutation), None), permutation


def _restore(result, permutation, keepdim: bool):
    if keepdim:
        result = at.permute(at.unsqueeze(result, -1), _reverse(permutation))
    return result


def linalg_matrix_norm(self, ord, dim, keepdim, dtype):  # noqa: A002 (aten's name)
    ord = float(ord)  # noqa: A001
    abs_ord = abs(ord)
    if abs_ord not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"{_NAME}: Order {_double_text(ord)} not supported.")
    dim = _matrix_norm_checks(self, list(dim), dtype, low_precision=abs_ord != 2.0)

    def max_min(t, d):
        return at.amax(t, [d], keepdim) if ord > 0 else at.amin(t, [d], keepdim)

    if abs_ord == 2.0:
        values, permutation = _svdvals_of(self, dim, dtype)
        return _restore(max_min(values, -1), permutation, keepdim)
    if abs_ord == math.inf:
        dim = [dim[1], dim[0]]
    if not keepdim and dim[0] < dim[1]:
        dim[1] -= 1
    return max_min(at.linalg_vector_norm(self, 1.0, [dim[0]], keepdim, dtype), dim[1])


def linalg_matrix_norm_str_ord(self, ord, dim, keepdim, dtype):  # noqa: A002
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"{_NAME}: Order {ord} not supported.")
    dim = _matrix_norm_checks(self, list(dim), dtype, low_precision=ord != "nuc")
    if ord == "fro":
        return at.linalg_vector_norm(self, 2, dim, keepdim, dtype)
    values, permutation = _svdvals_of(self, dim, dtype)
    return _restore(at.sum_dim_IntList(values, [-1], keepdim, None), permutation, keepdim)


def linalg_matrix_norm_out(self, ord, dim, keepdim, dtype, out):  # noqa: A002
    return _copy_into(out, at.linalg_matrix_norm(self, ord, dim, keepdim, dtype))


def linalg_matrix_norm_str_ord_out(self, ord, dim, keepdim, dtype, out):  # noqa: A002
    return _copy_into(out, at.linalg_matrix_norm_str_ord(self, ord, dim, keepdim, dtype))


def _check_norm_dims(self, dim, ord_given: bool) -> None:
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is specified, it must be of length 1 or 2. "
                f"Got {_dims_text(dim)}"
            )
    elif ord_given and self.dim() not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {self.dim()}D."
        )


def linalg_norm(self, ord, dim, keepdim, dtype):  # noqa: A002
    _check_norm_dims(self, dim, ord is not None)
    if ord is not None and (
        (dim is not None and len(dim) == 2) or (dim is None and self.dim() == 2)
    ):
        return at.linalg_matrix_norm(self, ord, list(dim) if dim is not None else [0, 1],
                                     keepdim, dtype)  # fmt: skip
    return at.linalg_vector_norm(self, 2.0 if ord is None else ord, dim, keepdim, dtype)


def linalg_norm_ord_str(self, ord, dim, keepdim, dtype):  # noqa: A002
    _check_norm_dims(self, dim, True)
    dims = list(dim) if dim is not None else [0, 1]
    return at.linalg_matrix_norm_str_ord(self, ord, dims, keepdim, dtype)


def linalg_norm_out(self, ord, dim, keepdim, dtype, out):  # noqa: A002
    return _copy_into(out, at.linalg_norm(self, ord, dim, keepdim, dtype))


def linalg_norm_ord_str_out(self, ord, dim, keepdim, dtype, out):  # noqa: A002
    return _copy_into(out, at.linalg_norm_ord_str(self, ord, dim, keepdim, dtype))
