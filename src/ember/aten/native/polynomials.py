"""The orthogonal polynomials of torch.special: Chebyshev T, U, V, W, Hermite H and He,
Laguerre L and Legendre P, as PyTorch evaluates them.

Layer: aten/native (formulas for the structured special_*_polynomial_* kernels). In:
NumPy arrays x and n in the kernel's floating dtype (n is truncated to an integer as
static_cast<int64_t> does; a non-finite n counts as negative). Out: the values. Mirrors
chebyshev_polynomial_t_forward & co. of ATen/native/Math.h: PyTorch's special cases at
|x| == 1, its closed forms for large n inside (-1, 1) and its three-term recurrences,
run here on whole arrays (each element stops at its own n), with the fused multiply-adds
of PyTorch's build (a float32 a * b - c rounds once).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "chebyshev_t",
    "chebyshev_u",
    "chebyshev_v",
    "chebyshev_w",
    "hermite_h",
    "hermite_he",
    "laguerre_l",
    "legendre_p",
]


def _fms(a, b, c):
    """a * b - c as PyTorch's compiled kernel computes it: one fused multiply-add (exact in
    float64 for float32 operands, then rounded once)."""
    if a.dtype == np.float32:
        wide = a.astype(np.float64) * np.asarray(b, dtype=np.float64) - np.asarray(c, np.float64)
        return wide.astype(np.float32)
    return a * b - c


def _orders(n):
    """static_cast<int64_t>(n), with NaN and infinities negative."""
    finite = np.isfinite(n)
    return np.where(finite, np.trunc(np.where(finite, n, -1)), -1).astype(np.int64)


def _recurrence(x, n, p, q, step, first: int):
    """Run ``r = step(k, p, q)`` for k = first .. first + (n - 2), per element."""
    steps = np.maximum(n - 1, 0)
    result = q.copy()
    count = int(steps.max()) if steps.size else 0
    for i in range(count):
        k = first + i
        active = steps > i
        r = step(x.dtype.type(k), p, q)
        p, q = np.where(active, q, p), np.where(active, r, q)
        result = np.where(active, r, result)
        if not np.any(active & ~np.isnan(q)):
            break
    return result


def _select(n, default, *cases):
    """The first case (condition, value) that holds, else default."""
    result = default
    for condition, value in reversed(cases):
        result = np.where(condition, value, result)
    return result


def _evaluate(x, n, first_degree, cases, step, first_k=2):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    t = x.dtype.type
    with np.errstate(all="ignore"):
        needs = ~np.any([c for c, _ in cases], axis=0) if cases else np.ones(x.shape, bool)
        needs = needs & (n >= 2)
        run = _recurrence(x, np.where(needs, n, 0), np.ones_like(x), first_degree, step, first_k)
        values = [(n < 0, t(0)), *cases, (n == 0, t(1)), (n == 1, first_degree)]
        return _select(n, run, *values).astype(x.dtype)


def _sign_cases(x, n, positive, even, odd):
    """The |x| == 1 case: positive for x > 0, else even / odd by n's parity."""
    return (np.abs(x) == 1, np.where(x > 0, positive, np.where(n % 2 == 0, even, odd)))


def chebyshev_t(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    t = x.dtype.type
    with np.errstate(all="ignore"):
        closed = np.cos(n.astype(x.dtype) * np.arccos(x)).astype(x.dtype)
    cases = [_sign_cases(x, n, t(1), t(1), t(-1)), ((n > 6) & (np.abs(x) < 1), closed)]
    return _evaluate(x, n, x, cases, lambda k, p, q: _fms(x + x, q, p))


def chebyshev_u(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    count = (n + 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        angle = np.arccos(x)
        sine = np.sin(angle)
        closed = np.where(sine != 0, np.sin(count * angle) / sine,
                          count * np.cos(count * angle) / x).astype(x.dtype)  # fmt: skip
    cases = [_sign_cases(x, n, count, count, -count), ((n > 8) & (np.abs(x) < 1), closed)]
    return _evaluate(x, n, x + x, cases, lambda k, p, q: _fms(x + x, q, p))


def chebyshev_v(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    t = x.dtype.type
    odd_count = (n + n + 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        angle = np.arccos(x)
        closed = np.cos((n.astype(x.dtype) + t(0.5)) * angle) / np.cos(angle / t(2))
        closed = np.where(np.sin(angle / t(2)) != 1, closed,
                          np.where(n % 2 == 0, odd_count, -odd_count)).astype(x.dtype)  # fmt: skip
    cases = [_sign_cases(x, n, t(1), odd_count, -odd_count), ((n > 8) & (np.abs(x) < 1), closed)]
    return _evaluate(x, n, x + x - t(1), cases, lambda k, p, q: _fms(x + x, q, p))


def chebyshev_w(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    t = x.dtype.type
    odd_count = (n + n + 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        angle = np.arccos(x)
        closed = np.sin((n.astype(x.dtype) + t(0.5)) * angle) / np.sin(angle / t(2))
        edge = np.where(x > 0, odd_count, np.where(n % 2 == 0, t(1), t(-1)))
        closed = np.where(np.cos(angle / t(2)) != 1, closed, edge).astype(x.dtype)
    cases = [_sign_cases(x, n, odd_count, t(1), t(-1)), ((n > 8) & (np.abs(x) < 1), closed)]
    return _evaluate(x, n, x + x + t(1), cases, lambda k, p, q: _fms(x + x, q, p))


def _hermite_limit(x):
    return 128 if x.dtype == np.float32 else 512


def hermite_h(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    cases = [(n > _hermite_limit(x), x.dtype.type(np.nan))]
    # k runs 2, 4, ..., 2n - 2: r = 2x q - k p
    return _evaluate(x, n, x + x, cases, lambda k, p, q: _fms(x + x, q, (k + k - 2) * p), 2)


def hermite_he(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    cases = [(n > _hermite_limit(x), x.dtype.type(np.nan))]
    return _evaluate(x, n, x, cases, lambda k, p, q: _fms(x, q, k * p), 1)


def laguerre_l(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    t = x.dtype.type
    cases = [(np.abs(x) == 0, t(1))]
    step = lambda k, p, q: _fms((k + k) + (t(1) - x), q, k * p) / (k + 1)  # noqa: E731
    return _evaluate(x, n, t(1) - x, cases, step, 1)


def legendre_p(x, n):
    x, n = np.broadcast_arrays(np.asarray(x), _orders(np.asarray(n)))
    t = x.dtype.type
    cases = [_sign_cases(x, n, t(1), t(1), t(-1))]
    step = lambda k, p, q: _fms((k + k + 1) * x, q, k * p) / (k + 1)  # noqa: E731
    return _evaluate(x, n, x, cases, step, 1)
