"""linalg_lstsq's backward formula, written with ember operators as FunctionsManual.cpp writes it.

Layer: autograd. In: the gradients of the solution and of the residuals, A, B and the
solution. Out: the gradients of A and B. Mirrors FunctionsManual.cpp's
linalg_lstsq_backward (the solution is pinv(A) B: pinv_backward for A, pinv(A)^H gX for
B; the residuals |A X - B|^2 add 2 (A X - B) gL X^H and -2 (A X - B) gL) and
pinv_backward. ember has no linalg_pinv operator: pinv(A) is the minimum-norm
least-squares solution of A Y = I (gelsd with rcond eps * max(m, n), linalg_pinv's
default rtol), which agrees with PyTorch's SVD-based pinv to rounding.
"""

from __future__ import annotations

import numpy as np

from ember._c10.layout import strided
from ember.aten.native import at

__all__ = ["linalg_lstsq_backward_self", "linalg_lstsq_backward_b"]


def _mh(t):
    t = at.transpose_int(t, -2, -1)
    return at.conj(t)  # mH: a lazy conjugate of the transpose


def _pinv(a):
    m, n = a.shape[-2:]
    rcond = float(np.finfo(a.dtype.to_real().np_dtype).eps) * max(m, n)
    eye = at.eye(m, a.dtype, strided, a.device, None)
    eye = at.expand(eye, list(a.shape[:-2]) + [m, m], False)
    return at.linalg_lstsq(a, eye, rcond, "gelsd")[0]


def _pinv_backward(grad, pinv_a, a):
    m, n = a.shape[-2:]
    pinv_ah, gradh = _mh(pinv_a), _mh(grad)
    if m <= n:
        k = gradh.matmul(pinv_a)
        k_pinv_ah = k.matmul(pinv_ah)
        return (
            -_mh(pinv_a.matmul(k))
            + k_pinv_ah
            - a.matmul(pinv_a).matmul(k_pinv_ah)
            + pinv_ah.matmul(pinv_a).matmul(gradh - k.matmul(a))
        )
    k = pinv_a.matmul(gradh)
    pinv_ah_k = pinv_ah.matmul(k)
    return (
        -_mh(k.matmul(pinv_a))
        + pinv_ah_k
        - pinv_ah_k.matmul(pinv_a).matmul(a)
        + (gradh - a.matmul(k)).matmul(pinv_a).matmul(pinv_ah)
    )


def _vector_case(a, b) -> bool:
    return b.dim() == a.dim() - 1


def _residual_grads(grad_residuals, a, b, solution):
    """(A X - B) and gL broadcast over the rows, when gL has elements."""
    if grad_residuals is None or grad_residuals.numel() == 0:
        return None
    residual = a.matmul(solution) - b
    return residual * grad_residuals.unsqueeze(-2)


def linalg_lstsq_backward_self(grad_solution, grad_residuals, self, b, solution):
    vector = _vector_case(self, b)
    b2 = b.unsqueeze(-1) if vector else b
    x = solution.unsqueeze(-1) if vector else solution
    result = None
    if grad_solution is not None:
        g = grad_solution.unsqueeze(-1) if vector else grad_solution
        result = _pinv_backward(g.matmul(_mh(b2)), _pinv(self), self)
    weighted = _residual_grads(grad_residuals, self, b2, x)
    if weighted is not None:
        term = (weighted * 2).matmul(_mh(x))
        result = term if result is None else result + term
    return result


def linalg_lstsq_backward_b(grad_solution, grad_residuals, self, b, solution):
    vector = _vector_case(self, b)
    b2 = b.unsqueeze(-1) if vector else b
    x = solution.unsqueeze(-1) if vector else solution
    result = None
    if grad_solution is not None:
        g = grad_solution.unsqueeze(-1) if vector else grad_solution
        result = _mh(_pinv(self)).matmul(g)
    weighted = _residual_grads(grad_residuals, self, b2, x)
    if weighted is not None:
        term = weighted * -2
        result = term if result is None else result + term
    if result is not None and vector:
        result = result.squeeze(-1)
    return result
