"""The CompositeImplicitAutograd linalg helpers: matrix_power, diagonal, vecdot, eigvals.

Layer: aten/native. In: the schema's arguments. Out: tensors computed through `at` (matmul,
linalg_inv, diagonal, mul / sum, linalg_eig), so autograd and a dispatch mode see PyTorch's
operators. Mirrors linalg_matrix_power_impl (LinearAlgebra.cpp: the small powers, then the
binary decomposition of n), linalg_diagonal, linalg_vecdot and linalg_eigvals
(BatchLinearAlgebra.cpp).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember._c10.memory_format import contiguous_format
from ember.aten.meta.linalg_decomp import square_check_inputs
from ember.aten.native import at
from ember.aten.native.linalg_composite import may_require_grad
from ember.aten.native.resize import resize_output

__all__ = [
    "linalg_matrix_power", "linalg_matrix_power_out", "matrix_power", "matrix_power_out",
    "linalg_diagonal", "linalg_vecdot", "linalg_vecdot_out", "linalg_eigvals",
]  # fmt: skip


def _power(self, n, out):
    square_check_inputs(self, "linalg.matrix_power")
    if out is not None:
        resize_output(out, self._sizes)
    if n == 0:
        eye = at.eye_m(self._sizes[-2], self._sizes[-1], self.dtype, strided, self.device, None)
        target = out if out is not None else at.clone(self, contiguous_format)
        return at.copy_(target, eye, False)
    if n == 1:
        return at.copy_(out, self, False) if out is not None else at.clone(self, contiguous_format)
    if n == -1:
        return at.linalg_inv_out(self, out) if out is not None else at.linalg_inv(self)
    a = at.linalg_inv(self) if n < 0 else self
    n = abs(n)
    if n == 2:
        return at.matmul_out(a, a, out) if out is not None else at.matmul(a, a)
    if n == 3:
        square = at.matmul(a, a)
        return at.matmul_out(square, a, out) if out is not None else at.matmul(square, a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else at.matmul(z, z)
        if bit == 1:
            if out is not None and n <= 0:
                return (
                    at.matmul_out(result, z, out) if result is not None else at.copy_(out, z, False)
                )
            result = z if result is None else at.matmul(result, z)
    return result


def linalg_matrix_power(self, n):
    return _power(self, n, None)


def linalg_matrix_power_out(self, n, out):
    return _power(self, n, out)


def matrix_power(self, n):
    return at.linalg_matrix_power(self, n)


def matrix_power_out(self, n, out):
    return at.linalg_matrix_power_out(self, n, out)


def linalg_diagonal(A, offset, dim1, dim2):  # noqa: N803 (aten's name)
    return at.diagonal(A, offset, dim1, dim2)


def _vecdot(x, y, dim):
    if x.dtype is not y.dtype:
        name = dtypes.scalar_type_name
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{name(x.dtype)} and y of type {name(y.dtype)} instead"
        )
    x = at.conj_physical(x) if x.dtype.is_complex else x  # PyTorch: x.conj(), a lazy view
    return at.mul_Tensor(x, y), dim


def linalg_vecdot(x, y, dim):
    product, dim = _vecdot(x, y, dim)
    return at.sum_dim_IntList(product, [dim], False, None)


def linalg_vecdot_out(x, y, dim, out):
    product, dim = _vecdot(x, y, dim)
    return at.sum_IntList_out(product, [dim], False, None, out)


def linalg_eigvals(self):
    """The eigenvectors too when a gradient may be asked for (linalg_eig's backward needs
    them); else _linalg_eigvals."""
    if may_require_grad(self):
        return at.linalg_eig(self)[0]
    return at._linalg_eigvals(self)
