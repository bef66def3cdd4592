"""ember.signal.windows: the window functions of torch.signal.windows.

Layer: torch face. In: a window length M and the factory keywords. Out: a 1-d window computed
with ember's operators in the order PyTorch's Python computes it (linspace over the scaled
sample positions, then exp / sin / cos / abs), so the values round alike. Mirrors
torch/signal/windows/windows.py (its checks and their ValueError texts included).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember._tensor_ctors import tensor as _tensor
from ember.aten._generated import python_functions as _f

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
    "general_hamming", "hamming", "hann", "kaiser", "nuttall",
]  # fmt: skip


def _checks(name: str, M: int, dtype, layout) -> None:  # noqa: N803 (PyTorch's name)
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _dtype(dtype):
    return dtypes.get_default_dtype() if dtype is None else dtype


def _empty(dtype, layout, device, requires_grad):
    return _f.empty((0,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def _ones(dtype, layout, device, requires_grad):
    return _f.ones((1,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def _positions(start, end, M, dtype, layout, device, requires_grad):  # noqa: N803
    return _f.linspace(start=start, end=end, steps=M, dtype=dtype, layout=layout,
                       device=device, requires_grad=requires_grad)  # fmt: skip


def _length(M: int, sym: bool) -> int:  # noqa: N803
    """The denominator's length: M - 1 points apart for a symmetric window, M for a
    periodic one (M == 1 aside)."""
    return M if not sym and M > 1 else M - 1


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):  # noqa: N803  # fmt: skip
    dtype = _dtype(dtype)
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if center is None:
        center = _length(M, sym) / 2.0
    scale = 1 / tau
    k = _positions(-center * scale, (-center + (M - 1)) * scale, M, dtype, layout, device,
                   requires_grad)  # fmt: skip
    return _f.exp(-_f.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):  # noqa: N803
    dtype = _dtype(dtype)
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    scale = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _positions(0.5 * scale, (0.5 + (M - 1)) * scale, M, dtype, layout, device, requires_grad)
    return _f.sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):  # noqa: N803  # fmt: skip
    dtype = _dtype(dtype)
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    start = -_length(M, sym) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _positions(start * scale, (start + (M - 1)) * scale, M, dtype, layout, device,
                   requires_grad)  # fmt: skip
    return _f.exp(-(k**2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):  # noqa: N803  # fmt: skip
    dtype = _dtype(dtype)
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    i0 = getattr(_f, "i0", None)
    if i0 is None:
        raise NotImplementedError("signal.windows.kaiser: ember has no torch.i0 yet")
    beta = _tensor(beta, dtype=dtype, device=device)
    start = -beta
    scale = 2.0 * beta / (M if not sym else M - 1)
    end = _f.minimum(beta, start + (M - 1) * scale)
    k = _positions(start, end, M, dtype, layout, device, requires_grad)
    return i0(_f.sqrt(beta * beta - _f.pow(k, 2))) / i0(beta)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):  # noqa: N803
    dtype = _dtype(dtype)
    _checks("bartlett", M, dtype, layout)
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    scale = 2 / (M if not sym else M - 1)
    k = _positions(-1, -1 + (M - 1) * scale, M, dtype, layout, device, requires_grad)
    return 1 - _f.abs(k)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):  # noqa: N803  # fmt: skip
    """sum_i (-1)^i a_i cos(i k), k = 2 pi n / (M - 1) (or / M for a periodic window)."""
    dtype = _dtype(dtype)
    _checks("general_cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    scale = 2 * math.pi / (M if not sym else M - 1)
    k = _positions(0, (M - 1) * scale, M, dtype, layout, device, requires_grad)
    signed = [(-1) ** i * w for i, w in enumerate(a)]
    a_i = _tensor(signed, device=device, dtype=dtype, requires_grad=requires_grad)
    i = _f.arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device,
                  requires_grad=a_i.requires_grad)  # fmt: skip
    return (a_i.unsqueeze(-1) * _f.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):  # noqa: N803  # fmt: skip
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)  # fmt: skip


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):  # noqa: N803
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)  # fmt: skip


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):  # noqa: N803
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)  # fmt: skip


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):  # noqa: N803
    dtype = _dtype(dtype)
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)  # fmt: skip


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):  # noqa: N803
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)  # fmt: skip
