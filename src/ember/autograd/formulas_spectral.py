"""Backward formulas of the discrete Fourier transforms: _fft_c2c, _fft_c2r, _fft_r2c.

Layer: autograd. In: the gradient of the transform and its arguments. Out: the input's
gradient. Mirrors FunctionsManual.cpp's fft_c2r_backward (an onesided R2C transform of the
gradient, the entries whose mirror images were dropped doubled) and fft_r2c_backward (the
gradient zero-filled to the full length, a backward C2C transform, its real part: ember has
no real() view, so a cast to the real dtype takes it).
"""

from __future__ import annotations

import warnings

from ember.aten.native import at
from ember.aten.native.common import wrap_dim

__all__ = ["fft_c2c_backward", "fft_c2r_backward", "fft_r2c_backward"]


def fft_c2c_backward(grad, dim, normalization, forward):
    return at._fft_c2c(grad, dim, normalization, not forward)


def fft_c2r_backward(grad, dim, normalization):
    gI = at._fft_r2c(grad, dim, normalization, True)  # noqa: N806
    last = dim[-1]
    double_length = grad.shape[last] - gI.shape[last]
    if double_length > 0:
        at.mul__Scalar(at.narrow(gI, last, 1, double_length), 2)
    return gI


def _real(t):
    """at::real(t): the real parts, here as a cast (ember has no real() view); the cast's
    warning that it discards the imaginary parts is the point, so it is silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return at._to_copy(t, t.dtype.to_real(), None, None, None, False, None)


def fft_r2c_backward(grad, dim, normalization, onesided, last_dim_size):
    """Twosided: the real part of the backward C2C transform. Onesided: the gradient
    zero-filled to the full last length first."""
    if not onesided:
        return _real(at._fft_c2c(grad, dim, normalization, False))
    last = wrap_dim(dim[-1], grad.dim())
    zero_length = last_dim_size - grad.shape[last]
    full = grad
    if zero_length > 0:
        shape = list(grad.shape)
        shape[last] = last_dim_size
        full = at.new_zeros(grad, shape, None, None, None, None)
        at.copy_(at.slice_Tensor(full, last, 0, grad.shape[last], 1), grad, False)
    return _real(at._fft_c2c(full, dim, normalization, False))
