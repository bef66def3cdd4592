"""The trapezoid rule: trapezoid, trapz (its older name) and cumulative_trapezoid.

Layer: aten/native, CompositeImplicitAutograd (built from dispatched operators, so
autograd and a dispatch mode see slice, add, mul, sum, cumsum ...). In: samples y, and
either sample points x (broadcast against y after the differences are taken, as NumPy
does) or a constant spacing dx; the dimension to integrate along. Out: the integral (y's
shape without that dimension) or its running values. Mirrors ATen/native/Integration.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.common import wrap_dim

__all__ = [
    "trapezoid_x",
    "trapezoid_dx",
    "trapz_x",
    "trapz_dx",
    "cumulative_trapezoid_x",
    "cumulative_trapezoid_dx",
]


def _halves(y, dim):
    """y without its last sample along dim, and without its first."""
    return at.slice_Tensor(y, dim, 0, -1, 1), at.slice_Tensor(y, dim, 1, None, 1)


def _size(y, dim) -> int:
    """Tensor::size(dim): a 0-dim tensor has no dimension to ask for."""
    return y._sizes[wrap_dim(dim, y.dim(), wrap_scalar=False)]


def _zeros_like_except(y, dim):
    sizes = list(y._sizes)
    del sizes[wrap_dim(dim, y.dim())]
    return at.zeros(sizes, y.dtype, None, y.device, None)


def _spacing(name, y, x, dim):
    """x's differences along dim, viewed so that they broadcast against y's."""
    if y.dtype is dtypes.bool or x.dtype is dtypes.bool:
        raise RuntimeError(
            f"{name}: received a bool input for `x` or `y`, but bool is not supported"
        )
    if x.dim() == 1:
        if x._sizes[0] != y._sizes[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.dim()
        sizes[dim] = x._sizes[0]
        x = at.view(x, sizes)
    elif x.dim() < y.dim():
        x = at.view(x, [1] * (y.dim() - x.dim()) + list(x._sizes))  # add_padding_to_shape
    left, right = _halves(x, dim)
    return at.sub_Tensor(right, left, 1)


def _real_dx(name, y, dx) -> float:
    if y.dtype is dtypes.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return float(dx)


def trapezoid_x(y, x, dim):
    dim = wrap_dim(dim, y.dim())
    if _size(y, dim) == 0:  # NumPy's answer for no samples
        return _zeros_like_except(y, dim)
    dx = _spacing("trapezoid", y, x, dim)
    left, right = _halves(y, dim)
    summed = at.sum_dim_IntList(
        at.mul_Tensor(at.add_Tensor(left, right, 1), dx), [dim], False, None
    )
    return at.div_Scalar(summed, 2.0)


def trapezoid_dx(y, dx, dim):
    if _size(y, dim) == 0:
        return _zeros_like_except(y, dim)
    dx = _real_dx("trapezoid", y, dx)
    # a constant spacing: dx * (sum(y) - (y_first + y_last) / 2), the subtrahend first (as
    # the C++ expression is evaluated)
    ends = at.add_Tensor(at.select_int(y, dim, 0), at.select_int(y, dim, -1), 1)
    halved = at.mul_Scalar(ends, 0.5)
    inner = at.sub_Tensor(at.sum_dim_IntList(y, [dim], False, None), halved, 1)
    return at.mul_Scalar(inner, dx)


def trapz_x(y, x, dim):
    return trapezoid_x(y, x, dim)


def trapz_dx(y, dx, dim):
    return trapezoid_dx(y, dx, dim)


def cumulative_trapezoid_x(y, x, dim):
    dim = wrap_dim(dim, y.dim())
    dx = _spacing("cumulative_trapezoid", y, x, dim)
    left, right = _halves(y, dim)
    running = at.cumsum(at.mul_Tensor(at.add_Tensor(left, right, 1), dx), dim, None)
    return at.div_Scalar(running, 2.0)


def cumulative_trapezoid_dx(y, dx, dim):
    dx = _real_dx("cumulative_trapezoid", y, dx)
    left, right = _halves(y, dim)
    return at.cumsum(at.mul_Scalar(at.add_Tensor(left, right, 1), dx / 2.0), dim, None)
