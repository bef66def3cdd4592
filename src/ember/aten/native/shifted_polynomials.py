"""The shifted Chebyshev polynomials of torch.special (T*, U*, V*, W*), as PyTorch
evaluates them, and their structured CPU kernels with the Scalar overloads.

Layer: aten/native. In: NumPy arrays x and n in the kernel's floating dtype (n truncated
as static_cast<int64_t> does). Out: the values; the kernels take (meta, x, n, out).
Mirrors shifted_chebyshev_polynomial_{t,u,v,w}_forward of ATen/native/Math.h (the special
cases at x == 1 and x == 0, the closed forms in y = 2x - 1 for large n with |y| < 1, the
three-term recurrence in y with its fused multiply-add) and their kernels in
ATen/native/cpu/BinaryOpsKernel.cpp (floating types only); the recurrence machinery is
native/polynomials.py's.
"""

from __future__ import annotations

import numpy as np

from ember.aten.native import polynomials
from ember.aten.native.special_polynomial_ops import _wrapping
from ember.aten.native.unary_math import binary_float_kernel

__all__ = [
    "shifted_chebyshev_t",
    "shifted_chebyshev_u",
    "shifted_chebyshev_v",
    "shifted_chebyshev_w",
]


def _setup(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), polynomials._orders(np.asarray(n)))
    t = x.dtype.type
    y = (x + x - t(1)).astype(x.dtype)
    return x, n, t, y


def _step(y):
    return lambda k, p, q: polynomials._fms(y + y, q, p)


def _parity(n, even, odd):
    return np.where(n % 2 == 0, even, odd)


def shifted_chebyshev_t(x, n):
    x, n, t, y = _setup(x, n)
    with np.errstate(all="ignore"):
        closed = np.cos(n.astype(x.dtype) * np.arccos(y)).astype(x.dtype)
    cases = [
        (x == 1, t(1)),
        (x == 0, _parity(n, t(1), t(-1))),
        ((n > 6) & (np.abs(y) < 1), closed),
    ]
    return polynomials._evaluate(y, n, y, cases, _step(y))


def shifted_chebyshev_u(x, n):
    x, n, t, y = _setup(x, n)
    count = (n + 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        angle = np.arccos(y)
        sine = np.sin(angle)
        closed = np.where(sine != 0, np.sin(count * angle) / sine,
                          count * np.cos(count * angle) / y).astype(x.dtype)  # fmt: skip
    cases = [
        (x == 1, count),
        (x == 0, _parity(n, count, -count)),
        ((n > 6) & (np.abs(y) < 1), closed),
    ]
    return polynomials._evaluate(y, n, y + y, cases, _step(y))


def shifted_chebyshev_v(x, n):
    x, n, t, y = _setup(x, n)
    odd_count = (n + n + 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        angle = np.arccos(y)
        closed = np.cos((n.astype(x.dtype) + t(0.5)) * angle) / np.cos(angle / t(2))
        closed = np.where(np.sin(angle / t(2)) != 1, closed,
                          _parity(n, odd_count, -odd_count)).astype(x.dtype)  # fmt: skip
    cases = [
        (x == 1, t(1)),
        (x == 0, _parity(n, odd_count, -odd_count)),
        ((n > 6) & (np.abs(y) < 1), closed),
    ]
    return polynomials._evaluate(y, n, y + y - t(1), cases, _step(y))


def shifted_chebyshev_w(x, n):
    x, n, t, y = _setup(x, n)
    odd_count = (n + n + 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        angle = np.arccos(y)
        closed = np.sin((n.astype(x.dtype) + t(0.5)) * angle) / np.sin(angle / t(2))
        closed = np.where(np.cos(angle / t(2)) != 1, closed,
                          _parity(n, t(1), t(-1))).astype(x.dtype)  # fmt: skip
    cases = [
        (x == 1, odd_count),
        (x == 0, _parity(n, t(1), t(-1))),
        ((n > 4) & (np.abs(y) < 1), closed),
    ]
    return polynomials._evaluate(y, n, y + y + t(1), cases, _step(y))


_FORMULAS = {
    "t": shifted_chebyshev_t,
    "u": shifted_chebyshev_u,
    "v": shifted_chebyshev_v,
    "w": shifted_chebyshev_w,
}

for _kind, _formula in _FORMULAS.items():
    _base = f"special_shifted_chebyshev_polynomial_{_kind}"
    _name = f"shifted_chebyshev_polynomial_{_kind}"
    globals()[_base + "_out"] = binary_float_kernel(_name + "_cpu", _formula, reduced=False)
    __all__.append(_base + "_out")
    for _suffix, _position in (("x_scalar", 0), ("n_scalar", 1)):
        for _out in ("", "_out"):
            _kernel = f"{_base}_{_suffix}{_out}"
            globals()[_kernel] = _wrapping(_kernel, _base + _out, _position)
            __all__.append(_kernel)
