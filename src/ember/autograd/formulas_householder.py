"""Backward formulas of linalg.householder_product and ormqr (real inputs).

Layer: autograd. In: the output gradient, the saved inputs and result. Out: the gradients of
the reflectors (below the diagonal of `input`), of tau and, for ormqr, of `other`. ormqr's
`other` gradient is PyTorch's (ormqr with the opposite transpose). For the reflectors and tau
the chain rule runs through Q = H_1 ... H_k with H_i = I - tau_i v_i v_i^T one reflector at a
time: with L_i, R_i the products before and after H_i and W_i = L_i^T gQ R_i^T,
g tau_i = -v_i^T W_i v_i and g v_i = -tau_i (W_i + W_i^T) v_i. That is the same derivative as
FunctionsManual.cpp's householder_product_backward (its values up to rounding), written
without its in-place reflector updates. Complex inputs raise.
"""

from __future__ import annotations

from ember._c10.layout import strided
from ember.aten.native import at

__all__ = ["householder_product_backward", "ormqr_backward"]


def _no_complex(t, name: str) -> None:
    if t.dtype.is_complex:
        raise NotImplementedError(f"{name}: ember computes this gradient for real inputs only")


def _t(x):
    return at.transpose_int(x, -2, -1)


def _reflectors(input, k):  # noqa: A002
    """V: column i is e_i plus input[i+1:, i]."""
    m = input.shape[-2]
    eye = at.eye_m(m, k, input.dtype, strided, input.device, None)
    return at.tril(at.narrow(input, -1, 0, k), -1) + eye


def _chain_backward(gQ, V, tau):  # noqa: N803
    m, k = V.shape[-2], tau.shape[-1]
    eye = at.eye(m, V.dtype, strided, V.device, None)
    columns = [at.narrow(V, -1, i, 1) for i in range(k)]
    taus = [at.unsqueeze(at.unsqueeze(at.select_int(tau, -1, i), -1), -1) for i in range(k)]
    H = [eye - t * at.matmul(v, _t(v)) for v, t in zip(columns, taus)]  # noqa: N806
    prefix = [eye]
    for i in range(1, k):
        prefix.append(at.matmul(prefix[-1], H[i - 1]))
    suffix = [eye] * k
    for i in range(k - 2, -1, -1):
        suffix[i] = at.matmul(H[i + 1], suffix[i + 1])
    g_v, g_tau = [], []
    for i in range(k):
        W = at.matmul(at.matmul(_t(prefix[i]), gQ), _t(suffix[i]))  # noqa: N806
        v = columns[i]
        g_tau.append(-at.squeeze_dim(at.squeeze_dim(at.matmul(_t(v), at.matmul(W, v)), -1), -1))
        g_v.append(-taus[i] * at.matmul(W + _t(W), v))
    return at.cat(g_v, -1), at.stack(g_tau, -1)


def _input_grad(g_V, input):  # noqa: N803, A002
    """Only the entries below the diagonal of the first k columns reach the result."""
    grad = at.tril(g_V, -1)
    n, k = input.shape[-1], g_V.shape[-1]
    if n > k:
        pad = at.zeros_like(at.narrow(input, -1, k, n - k), None, None, None, None, None)
        grad = at.cat([grad, pad], -1)
    return grad


def householder_product_backward(grad, result, input, tau):  # noqa: A002
    if grad is None:
        return None, None
    _no_complex(input, "householder_product_backward")
    m, n = input.shape[-2], input.shape[-1]
    k = tau.shape[-1]
    gQ = grad  # noqa: N806
    if m > n:
        pad = at.new_zeros(grad, list(grad.shape[:-1]) + [m - n], None, None, None, None)
        gQ = at.cat([grad, pad], -1)  # noqa: N806
    if k == 0:
        return at.zeros_like(input, None, None, None, None, None), at.zeros_like(
            tau, None, None, None, None, None
        )
    g_V, g_tau = _chain_backward(gQ, _reflectors(input, k), tau)  # noqa: N806
    return _input_grad(g_V, input), g_tau


def ormqr_backward(grad, result, self, tau, other, left, transpose, grad_input_mask):
    if grad is None:
        return None, None, None
    grad_other = at.ormqr(self, tau, grad, left, not transpose) if grad_input_mask[2] else None
    if not (grad_input_mask[0] or grad_input_mask[1]):
        return None, None, grad_other
    _no_complex(self, "ormqr_backward")
    if left:
        gQ = at.matmul(other, _t(grad)) if transpose else at.matmul(grad, _t(other))  # noqa: N806
    else:
        gQ = at.matmul(_t(grad), other) if transpose else at.matmul(_t(other), grad)  # noqa: N806
    k = tau.shape[-1]
    if k == 0:
        zeros = at.zeros_like(self, None, None, None, None, None)
        return zeros, at.zeros_like(tau, None, None, None, None, None), grad_other
    g_V, g_tau = _chain_backward(gQ, _reflectors(self, k), tau)  # noqa: N806
    return _input_grad(g_V, self), g_tau, grad_other
