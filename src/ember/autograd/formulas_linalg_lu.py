"""Backward formulas of the LU family: linalg_lu, linalg_lu_factor_ex, lu_unpack and
linalg_lu_solve.

Layer: autograd. In: the output gradients (None where undefined), the saved inputs and
outputs. Out: the input gradients, computed with ember's operators as PyTorch computes them.
Mirrors FunctionsManual.cpp's linalg_lu_backward (square, wide and tall cases),
lu_factor_ex_backward, lu_unpack_backward and linalg_lu_solve_LU.
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = [
    "linalg_lu_backward", "lu_factor_ex_backward", "lu_unpack_backward", "linalg_lu_solve_LU",
]  # fmt: skip


def _mh(t):
    t = at.transpose_int(t, -2, -1)
    return at.conj_physical(t) if t.dtype.is_complex else t


def _tri_solve(A, B, upper, left=True, unitriangular=False):  # noqa: N803
    return at.linalg_solve_triangular(A, B, upper, left, unitriangular)


def _zeros_like(t):
    return at.zeros_like(t, None, None, None, None, None)


def linalg_lu_backward(L_grad, U_grad, P, L, U, pivot):  # noqa: N803
    """A = P L U: the factors' gradients pulled back through two triangular solves."""
    if L_grad is None and U_grad is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        A_grad = at.tril(at.matmul(_mh(L), L_grad), -1) if L_grad is not None else None  # noqa: N806
        if U_grad is not None:
            upper = at.triu(at.matmul(U_grad, _mh(U)), 0)
            A_grad = upper if A_grad is None else A_grad + upper  # noqa: N806
        A_grad = _tri_solve(_mh(U), A_grad, False, False)  # noqa: N806
        A_grad = _tri_solve(_mh(L), A_grad, True, True, True)  # noqa: N806
        return at.matmul(P, A_grad) if pivot else A_grad
    if m < n:  # wide: U = [U1 U2]
        U1 = U if n == k else at.narrow(U, -1, 0, k)  # noqa: N806
        A_grad = at.matmul(_mh(L), L_grad) if L_grad is not None else None  # noqa: N806
        if U_grad is not None:
            term = at.matmul(at.triu(U_grad, 0), _mh(U))
            A_grad = -term if A_grad is None else A_grad - term  # noqa: N806
        A_grad = _tri_solve(_mh(U1), at.tril(A_grad, -1), False, False)  # noqa: N806
        if U_grad is not None:
            U1_grad = at.narrow(U_grad, -1, 0, k)  # noqa: N806
            U2_grad = at.narrow(U_grad, -1, k, n - k)  # noqa: N806
            A_grad = at.cat([A_grad + at.triu(U1_grad, 0), U2_grad], -1)  # noqa: N806
        A_grad = _tri_solve(_mh(L), A_grad, True, True, True)  # noqa: N806
        if U_grad is None:
            A_grad = at.cat([A_grad, _zeros_like(at.narrow(U, -1, k, n - k))], -1)  # noqa: N806
        return at.matmul(P, A_grad) if pivot else A_grad
    # tall: L = [L1; L2]
    L1 = L if m == k else at.narrow(L, -2, 0, k)  # noqa: N806
    A_grad = at.matmul(U_grad, _mh(U)) if U_grad is not None else None  # noqa: N806
    if L_grad is not None:
        term = at.matmul(_mh(L), at.tril(L_grad, -1))
        A_grad = -term if A_grad is None else A_grad - term  # noqa: N806
    A_grad = _tri_solve(_mh(L1), at.triu(A_grad, 0), True, True, True)  # noqa: N806
    if L_grad is not None:
        L1_grad = at.narrow(L_grad, -2, 0, k)  # noqa: N806
        L2_grad = at.narrow(L_grad, -2, k, m - k)  # noqa: N806
        A_grad = at.cat([A_grad + at.tril(L1_grad, -1), L2_grad], -2)  # noqa: N806
    A_grad = _tri_solve(_mh(U), A_grad, False, False)  # noqa: N806
    if L_grad is None:
        A_grad = at.cat([A_grad, _zeros_like(at.narrow(L, -2, k, m - k))], -2)  # noqa: N806
    return at.matmul(P, A_grad) if pivot else A_grad


def lu_factor_ex_backward(grad, LU, pivots, pivot):  # noqa: N803
    """lu_unpack the factors, then linalg_lu_backward with the two halves of grad."""
    if grad is None:
        return None
    P, L, U = at.lu_unpack(LU, pivots, True, pivot)  # noqa: N806
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L_grad = at.narrow(grad, -1, 0, k)  # noqa: N806
    U_grad = at.narrow(grad, -2, 0, k)  # noqa: N806
    return linalg_lu_backward(L_grad, U_grad, P, L, U, pivot)


def lu_unpack_backward(L_grad, U_grad, m, n):  # noqa: N803
    """L_grad's strict lower triangle plus U_grad's upper one, placed in an m x n matrix."""
    if L_grad is None and U_grad is None:
        return None
    k = min(m, n)
    lower = at.tril(L_grad, -1) if L_grad is not None else None
    upper = at.triu(U_grad, 0) if U_grad is not None else None
    if m == n:
        if lower is None or upper is None:
            return upper if lower is None else lower
        return lower + upper
    if m < n:  # L is m x k (square), U is k x n
        if upper is None:
            pad = at.new_zeros(lower, list(lower.shape[:-1]) + [n - k], None, None, None, None)
            return at.cat([lower, pad], -1)
        if lower is None:
            return upper
        head = at.narrow(upper, -1, 0, k) + lower
        return at.cat([head, at.narrow(upper, -1, k, n - k)], -1)
    # m > n: L is m x k, U is k x k
    if lower is None:
        pad = at.new_zeros(upper, list(upper.shape[:-2]) + [m - k, n], None, None, None, None)
        return at.cat([upper, pad], -2)
    if upper is None:
        return lower
    head = at.narrow(lower, -2, 0, k) + upper
    return at.cat([head, at.narrow(lower, -2, k, m - k)], -2)


def linalg_lu_solve_LU(gX, LU, pivots, X, left, adjoint):  # noqa: N802, N803
    """The gradient with respect to the packed factors of op(A) X = B (or X op(A) = B)."""
    if gX is None:
        return None
    P, L, U = at.lu_unpack(LU, pivots, True, left == adjoint)  # noqa: N806
    if left != adjoint:
        # gR = U^{-H} op_2(-gX) op_2(X)^H
        product = at.matmul(gX, _mh(X)) if left else at.matmul(_mh(gX), X)
        gR = _tri_solve(_mh(U), -product, False)  # noqa: N806
        # gL = (L^{-H} gR U^H).tril(-1)
        gL = at.tril(_tri_solve(_mh(L), at.matmul(gR, _mh(U)), True, True, True), -1)  # noqa: N806
        return gL + at.triu(gR, 0)
    # gR = -P^T op_3(X) op_1(op_2(gX)) P
    product = at.matmul(X, _mh(gX)) if left else at.matmul(_mh(X), gX)
    gR = -at.matmul(at.matmul(at.transpose_int(P, -2, -1), product), P)  # noqa: N806
    gR = _tri_solve(_mh(L), gR, True, False, True)  # noqa: N806
    gU = at.triu(_tri_solve(_mh(U), at.matmul(_mh(L), gR), False, False), 0)  # noqa: N806
    return at.tril(gR, -1) + gU
