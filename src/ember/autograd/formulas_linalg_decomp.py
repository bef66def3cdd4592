"""Backward formulas of the decompositions: det, slogdet, inv, solve, cholesky, qr, svd, eigh.

Layer: autograd. In: the output gradients (None where undefined), the saved inputs and
outputs. Out: the input gradients. Mirrors FunctionsManual.cpp's linalg_det_backward,
slogdet_backward, linalg_solve_backward, cholesky_backward, linalg_qr_backward, svd_backward
and linalg_eig_backward (is_hermitian=true), with ember's operators. Where PyTorch solves with
linalg_lu_solve (grad mode off), these formulas take PyTorch's own grad-mode path,
linalg_solve (ember has no linalg_lu_solve), which gives the same values to rounding. The complex cases that need real / imag views raise.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._c10.layout import strided
from ember.aten.native import at

__all__ = [
    "linalg_det_backward", "slogdet_backward", "linalg_inv_backward",
    "linalg_solve_backward_A", "linalg_solve_backward_B", "cholesky_backward",
    "linalg_qr_backward", "svd_backward", "linalg_eigh_backward", "linalg_eig_backward",
    "linalg_solve_triangular_backward_A", "linalg_solve_triangular_backward_B",
]  # fmt: skip


def _mh(t):
    if t.dim() < 2:
        raise RuntimeError(
            "tensor.mH is only supported on matrices or batches of matrices. "
            f"Got {t.dim()}-D tensor."
        )
    t = at.transpose_int(t, -2, -1)
    return at.conj_physical(t) if t.dtype.is_complex else t


def _no_complex(t, name: str) -> None:
    if t.dtype.is_complex:
        raise NotImplementedError(
            f"{name}: ember computes this gradient for real inputs only (the complex formula "
            "needs real / imag views)"
        )


def _diag_embed(values):
    """diag_embed(values): the vectors of the last dim on the diagonals of matrices."""
    n = values.shape[-1]
    eye = at.eye(n, values.dtype, strided, values.device, None)
    return at.mul_Tensor(eye, at.unsqueeze(values, -1))


def _solve_adjoint(A, d):
    """A^{-H} d, as linalg_solve(A.mH(), d)."""
    return at.linalg_solve(_mh(A), d, True)


def linalg_det_backward(grad, det, A, LU, pivots):
    """G solves A^H G = conj(det) grad I; singular matrices take the SVD's adjugate."""
    if grad is None:
        return None
    if A.numel() == 0:  # torch.autograd.grad hands back an empty gradient here
        return at.zeros_like(A, None, None, None, None, None)
    d_diag = grad * det.conj()
    n = A.shape[-1]
    d = _diag_embed(at.expand(at.unsqueeze(d_diag, -1), list(det.shape) + [n], False))
    eps = float(np.finfo(A.dtype.to_real().np_dtype).eps)
    if (np.abs(det.detach().ndarray()) < 100.0 * eps).any():
        raise NotImplementedError(
            "linalg_det_backward: ember has no gradient for a (numerically) singular matrix "
            "(PyTorch's perturbed lu_solve and SVD adjugate are not implemented)"
        )
    return _solve_adjoint(A, d)


def slogdet_backward(grad_sign, grad_logabsdet, A, signdet, LU, pivots):
    """A^{-H} g with g the logabsdet's gradient (the sign's is zero for real inputs)."""
    if grad_sign is None and grad_logabsdet is None:
        return None
    if not A.dtype.is_complex and grad_logabsdet is None:
        return None
    if A.dtype.is_complex and grad_sign is not None:
        _no_complex(A, "slogdet_backward")
    g = grad_logabsdet
    if A.dtype.is_complex:
        g = at.to_dtype(g, A.dtype, False, False, None)
    n = A.shape[-1]
    d = _diag_embed(at.expand(at.unsqueeze(g, -1), list(g.shape) + [n], False))
    return _solve_adjoint(A, d)


def linalg_inv_backward(grad, inverse):
    """-A^{-H} grad A^{-H}."""
    if grad is None:
        return None
    inverse_h = _mh(inverse)
    return -at.matmul(inverse_h, at.matmul(grad, inverse_h))


def _vector_case(A, X) -> bool:
    return X.dim() == 1 or (A.dim() - 1 == X.dim() and tuple(X.shape) == tuple(A.shape[:-1]))


def _solve_grad_B(grad, A, left):
    """gB = A^{-H} gX (left) or gX A^{-H} (right)."""
    vector = _vector_case(A, grad)
    g = at.unsqueeze(grad, -1) if vector else grad
    return at.linalg_solve(_mh(A), g, left), vector


def linalg_solve_backward_A(grad, result, A, left):
    """gA = -gB X^H (left) or -X^H gB (right)."""
    if grad is None:
        return None
    gB, vector = _solve_grad_B(grad, A, left)  # noqa: N806
    X = at.unsqueeze(result, -1) if vector else result  # noqa: N806
    return -gB.matmul(_mh(X)) if left else -_mh(X).matmul(gB)


def linalg_solve_backward_B(grad, A, left):
    if grad is None:
        return None
    gB, vector = _solve_grad_B(grad, A, left)  # noqa: N806
    return at.squeeze_dim(gB, -1) if vector else gB


def cholesky_backward(gL, upper, L):  # noqa: N803
    """Murray (2016): Phi(L^H gL) solved against L^H and L."""
    if gL is None:
        return None
    if upper:
        L, gL = _mh(L), _mh(gL)  # noqa: N806
    gA = at.tril(_mh(L).matmul(gL), 0)  # noqa: N806
    gA = 0.5 * (gA + _mh(at.tril(gA, -1)))  # noqa: N806
    gA = at.linalg_solve_triangular(_mh(L), gA, True, True, False)  # noqa: N806
    return at.linalg_solve_triangular(L, gA, False, False, False)


def linalg_qr_backward(gQ, gR, Q, R, mode):  # noqa: N803
    compute_q = mode != "r"
    reduced = mode != "complete"
    if not compute_q:
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr."
        )
    m, n = Q.shape[-2], R.shape[-1]
    if not (reduced or m <= n):
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if gQ is None and gR is None:
        return None
    _no_complex(Q, "linalg_qr_backward")
    if gQ is not None:
        gA = gR.matmul(_mh(R)) - _mh(Q).matmul(gQ) if gR is not None else -_mh(Q).matmul(gQ)  # noqa: N806
    else:
        gA = gR.matmul(_mh(R))  # noqa: N806
    if m >= n:
        upper = at.triu(gA, 0)
        sym = upper + _mh(upper)
        sym = sym - 0.5 * _diag_embed(at.diagonal(sym, 0, -2, -1))
        gA = Q.matmul(sym)  # noqa: N806
        if gQ is not None:
            gA = gA + gQ  # noqa: N806
        return at.linalg_solve_triangular(_mh(R), gA, False, False, False)
    skew = at.tril(-gA - _mh(-gA), 0)
    gA = Q.matmul(skew)  # noqa: N806
    gA = at.linalg_solve_triangular(_mh(at.narrow(R, -1, 0, m)), gA, False, False, False)  # noqa: N806
    zeros = gA.new_zeros(list(R.shape[:-1]) + [n - m])
    gA = at.cat([gA, zeros], -1)  # noqa: N806
    if gR is not None:
        gA = gA + Q.matmul(gR)  # noqa: N806
    return gA


def _s_gaps(S):  # noqa: N803
    """E_jk = S_k^2 - S_j^2 off the diagonal, 1 on it."""
    S2 = S * S  # noqa: N806
    E = at.unsqueeze(S2, -2) - at.unsqueeze(S2, -1)  # noqa: N806
    k = S.shape[-1]
    eye = at.eye(k, S.dtype, strided, S.device, None)
    return E + eye


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices):  # noqa: N803
    """svd_backward on the first k columns of U and rows of Vh (full_matrices narrowed)."""
    if U.dim() < 2 or Vh.dim() < 2:  # compute_uv=False: no singular vectors were saved
        raise RuntimeError(
            'U.dim() >= 2 && Vh.dim() >= 2 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
            'torch/csrc/autograd/FunctionsManual.cpp":3728, please report a bug to PyTorch. '
        )
    if gS is None and gU is None and gVh is None:
        return None
    k = S.shape[-1]
    if full_matrices:
        gU = at.narrow(gU, -1, 0, k) if gU is not None else None  # noqa: N806
        gVh = at.narrow(gVh, -2, 0, k) if gVh is not None else None  # noqa: N806
        U, Vh = at.narrow(U, -1, 0, k), at.narrow(Vh, -2, 0, k)  # noqa: N806
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if m >= n:
            return at.matmul(U, at.unsqueeze(gS, -1) * Vh)
        return at.matmul(U * at.unsqueeze(gS, -2), Vh)
    _no_complex(U, "svd_backward")
    UhgU = _skew(at.matmul(_mh(U), gU)) if gU is not None else None  # noqa: N806
    VhgV = _skew(at.matmul(Vh, _mh(gVh))) if gVh is not None else None  # noqa: N806
    E = _s_gaps(S)  # noqa: N806
    if gU is not None and gVh is not None:
        gA = (UhgU * at.unsqueeze(S, -2) + at.unsqueeze(S, -1) * VhgV) / E  # noqa: N806
    elif gU is not None:
        gA = (UhgU / E) * at.unsqueeze(S, -2)  # noqa: N806
    else:
        gA = at.unsqueeze(S, -1) * (VhgV / E)  # noqa: N806
    if gS is not None:
        gA = gA + _diag_embed(gS)  # noqa: N806
    if m > n and gU is not None:
        gA = at.matmul(U, gA)  # noqa: N806
        gUSinv = gU / at.unsqueeze(S, -2)  # noqa: N806
        gA = gA + gUSinv - at.matmul(U, at.matmul(_mh(U), gUSinv))  # noqa: N806
        return at.matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = at.matmul(gA, Vh)  # noqa: N806
        SinvgVh = gVh / at.unsqueeze(S, -1)  # noqa: N806
        gA = gA + SinvgVh - at.matmul(at.matmul(SinvgVh, _mh(Vh)), Vh)  # noqa: N806
        return at.matmul(U, gA)
    if m >= n:
        return at.matmul(U, at.matmul(gA, Vh))
    return at.matmul(at.matmul(U, gA), Vh)


def _skew(A):  # noqa: N803
    return A - _mh(A)


def linalg_eigh_backward(gL, gV, L, V):  # noqa: N803
    """linalg_eig_backward with is_hermitian: V (diag(gL) + skew(V^H gV) / 2E) V^H."""
    if gL is None and gV is None:
        return None
    if gV is None:
        return at.matmul(V * at.unsqueeze(gL, -2), _mh(V))
    _no_complex(V, "linalg_eigh_backward")
    VhgV = at.matmul(_mh(V), gV)  # noqa: N806
    VhgV = 0.5 * (VhgV - _mh(VhgV))  # noqa: N806
    n = L.shape[-1]
    eye = at.eye(n, L.dtype, strided, L.device, None)
    Econj = at.unsqueeze(L, -2) - at.unsqueeze(L, -1) + eye  # noqa: N806
    gA = VhgV / Econj  # noqa: N806
    if gL is not None:
        gA = gA * (1 - eye) + _diag_embed(gL)  # noqa: N806
    return at.matmul(V, at.matmul(gA, _mh(V)))


def _real_part(t):
    """at::real as a cast (ember has no real() view), its warning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return at._to_copy(t, t.dtype.to_real(), None, None, None, False, None)


def linalg_eig_backward(gL, gV, L, V, self_dtype):  # noqa: N803
    """V^{-H} (diag(gL) + (V^H gV - V^H V Re diag(V^H gV)) / conj(E)) V^H, its real part for a
    real input (handle_r_to_c)."""
    if gL is None and gV is None:
        return None
    Vh = _mh(V)  # noqa: N806
    if gV is None:
        result = at.linalg_solve(Vh, at.unsqueeze(gL, -1) * Vh, True)
    else:
        VhgV = at.matmul(Vh, gV)  # noqa: N806
        diag = at.diagonal(VhgV, 0, -2, -1)
        imag = diag.detach().ndarray().imag
        if not np.allclose(imag, 0, rtol=1e-2, atol=1e-2):
            raise RuntimeError(
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined."
            )
        real_diag = at.to_dtype(_real_part(diag), V.dtype, False, False, None)
        VhgV = VhgV - at.matmul(Vh, V * at.unsqueeze(real_diag, -2))  # noqa: N806
        n = L.shape[-1]
        eye = at.eye(n, L.dtype, strided, L.device, None)
        Lconj = at.conj_physical(L)  # noqa: N806
        Econj = at.unsqueeze(Lconj, -2) - at.unsqueeze(Lconj, -1) + eye  # noqa: N806
        gA = VhgV / Econj  # noqa: N806
        if gL is not None:
            gA = gA * (1 - eye) + _diag_embed(gL)  # noqa: N806
        result = at.linalg_solve(Vh, at.matmul(gA, Vh), True)
    if not self_dtype.is_complex:
        return _real_part(result)
    return result


def _solve_triangular_grad_B(grad, A, upper, left, unitriangular):  # noqa: N803
    return at.linalg_solve_triangular(_mh(A), grad, not upper, left, unitriangular)


def linalg_solve_triangular_backward_A(grad, A, X, upper, left, unitriangular):  # noqa: N803
    """G_A = -G_B X^H (left) or -X^H G_B, projected on A's triangle."""
    if grad is None:
        return None
    G_B = _solve_triangular_grad_B(grad, A, upper, left, unitriangular)  # noqa: N806
    X_H = _mh(X)  # noqa: N806
    G_A = -at.matmul(G_B, X_H) if left else -at.matmul(X_H, G_B)  # noqa: N806
    return at.triu(G_A, int(unitriangular)) if upper else at.tril(G_A, -int(unitriangular))


def linalg_solve_triangular_backward_B(grad, A, upper, left, unitriangular):  # noqa: N803
    if grad is None:
        return None
    return _solve_triangular_grad_B(grad, A, upper, left, unitriangular)
