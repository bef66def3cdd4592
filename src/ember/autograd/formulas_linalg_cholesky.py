"""Backward formulas of cholesky_solve, cholesky_inverse, triangular_solve, linalg_pinv and
linalg_matrix_exp.

Layer: autograd. In: the output gradients (None where undefined), the saved inputs and
outputs, grad_input_mask. Out: the input gradients (a tuple where an entry lists several
inputs). Mirrors FunctionsManual.cpp's cholesky_solve_backward, cholesky_inverse_backward,
triangular_solve_backward, pinv_backward and linalg_matrix_exp_differential, with ember's
operators (conj_physical where
PyTorch takes a lazy conj view).
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = [
    "cholesky_solve_backward", "cholesky_inverse_backward", "triangular_solve_backward",
    "pinv_backward", "linalg_matrix_exp_differential",
]  # fmt: skip


def _conj(t):
    return at.conj_physical(t) if t.dtype.is_complex else t


def _mh(t):
    return _conj(at.transpose_int(t, -2, -1))


def cholesky_solve_backward(grad_x, self, input2, result, upper, grad_input_mask):
    if grad_x is None:
        return None, None
    grad_self = at.cholesky_solve(grad_x, input2, upper)
    common = at.matmul(grad_self, _mh(result))
    common = common + _mh(common)
    grad_input2 = -at.matmul(input2, common) if upper else -at.matmul(common, input2)
    return grad_self, grad_input2


def cholesky_inverse_backward(grad, L, upper, inverse):  # noqa: N803
    if grad is None:
        return None
    common = grad + _mh(grad)
    common = at.matmul(inverse, at.matmul(common, inverse))
    return -at.matmul(L, common) if upper else -at.matmul(common, L)


def _zeros_as(t):
    return at.expand(at.zeros([1], t.dtype, None, t.device, None), list(t.shape), False)


def triangular_solve_backward(
    grad_x, grad_m, b, a, x, upper, transpose, unitriangular, grad_input_mask
):
    if grad_x is None and grad_m is None:
        return None, None
    grad_b = grad_a = None
    if grad_x is not None:
        grad_b = at.triangular_solve(grad_x, _conj(a), upper, not transpose, unitriangular)[0]
        if grad_input_mask[1]:
            if transpose:
                grad_a = -at.matmul(_conj(x), at.transpose_int(grad_b, -2, -1))
            else:
                grad_a = -at.matmul(grad_b, _mh(x))
            diagonal = int(unitriangular)
            grad_a = at.triu(grad_a, diagonal) if upper else at.tril(grad_a, -diagonal)
    if grad_b is None:
        grad_b = _zeros_as(b)
    if grad_a is None:
        grad_a = _zeros_as(a)
    if grad_m is not None:
        grad_a = grad_a + grad_m
    return grad_b, grad_a


def pinv_backward(grad, pinvA, A):  # noqa: N803
    """FunctionsManual.cpp's pinv_backward, its products of the smaller dimension."""
    if grad is None:
        return None
    m, n = A.shape[-2], A.shape[-1]
    pinvAh = _mh(pinvA)  # noqa: N806
    gradh = _mh(grad)
    if m <= n:
        K = at.matmul(gradh, pinvA)  # noqa: N806
        KpinvAh = at.matmul(K, pinvAh)  # noqa: N806
        return (
            -_mh(at.matmul(pinvA, K))
            + KpinvAh
            - at.matmul(at.matmul(A, pinvA), KpinvAh)
            + at.matmul(at.matmul(pinvAh, pinvA), gradh - at.matmul(K, A))
        )
    K = at.matmul(pinvA, gradh)  # noqa: N806
    pinvAhK = at.matmul(pinvAh, K)  # noqa: N806
    return (
        -_mh(at.matmul(K, pinvA))
        + at.matmul(at.matmul(gradh - at.matmul(A, K), pinvA), pinvAh)
        + pinvAhK
        - at.matmul(at.matmul(pinvAhK, pinvA), A)
    )


def linalg_matrix_exp_differential(self, grad, adjoint):
    """differential_analytic_matrix_function: exp([[A, G], [0, A]]) holds the differential in
    its upper right block (A = self^H for the adjoint)."""
    if grad is None:
        return None
    A = _mh(self) if adjoint else self  # noqa: N806
    n = A.shape[-1]
    top = at.cat([A, grad], -1)
    bottom = at.cat([at.zeros_like(A, None, None, None, None, None), A], -1)
    meta = at.cat([top, bottom], -2)
    return at.narrow(at.narrow(at.linalg_matrix_exp(meta), -2, 0, n), -1, n, n)
