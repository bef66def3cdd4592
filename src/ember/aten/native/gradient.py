"""torch.gradient: second-order central differences inside, first or second order at the
edges, with unit, scalar or coordinate spacing (the seven overloads).

Layer: aten/native (CompositeImplicitAutograd kernels). In: the full schema argument list.
Out: one tensor per differentiated dim, computed by other operators, so autograd comes from
them. Mirrors pre_check_gradient, gradient_helper and gradient_helper_float of
ATen/native/ReduceOps.cpp. A dispatch mode sees PyTorch's operator sequence: PyTorch's
compiler evaluates the right operand of `a + b` (and of each call's arguments) before the
left one, and the expressions below are written in that order.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.common import wrap_dim, wrap_dims

__all__ = [
    "gradient_scalarint",
    "gradient_scalararray",
    "gradient_array",
    "gradient_scalarrayint",
    "gradient_scalarrayarray",
    "gradient_tensorarrayint",
    "gradient_tensorarray",
]


def _pre_check(self, spacing_size, dim, edge_order) -> None:
    if self.dtype.name == "uint8":
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dim is None and spacing_size != self.dim():
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {self.dim()}', since dim argument was not given, but got a "
            f"list of length {spacing_size}"
        )
    if spacing_size is not None and dim is not None and spacing_size != len(dim):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length "
            f"{spacing_size} and a dim argument of length {len(dim)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = range(self.dim()) if dim is None else dim
    if dim is not None:
        wrap_dims(dim, self.dim())
    for d in dims:
        if self._sizes[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )


def _slice(t, dim, start, end=None):
    return at.slice_Tensor(t, dim, start, end, 1)


def _cat(center, prepend, append, dim):
    return at.cat([prepend, center, append], dim)


def _with_scalar_spacing(self, spacing, dims, edge_order) -> tuple:
    """gradient_helper_float: spacing is a list of numbers, one per dim."""
    result = []
    for d, dx in zip(dims, spacing):
        d = wrap_dim(d, self.dim())
        right = _slice(self, d, 0, -2)
        center = at.div_Scalar(at.sub_Tensor(_slice(self, d, 2), right, 1), dx)
        if edge_order == 1:
            left = _slice(self, d, 0, 1)
            prepend = at.div_Scalar(at.sub_Tensor(_slice(self, d, 1, 2), left, 1), dx)
            left = _slice(self, d, -2, -1)
            append = at.div_Scalar(at.sub_Tensor(_slice(self, d, -1), left, 1), dx)
        else:
            third = at.mul_Scalar(_slice(self, d, 2, 3), 0.5)
            second = at.mul_Scalar(_slice(self, d, 1, 2), 2)
            first = at.mul_Scalar(_slice(self, d, 0, 1), -1.5)
            combined = at.sub_Tensor(at.add_Tensor(first, second, 1), third, 1)
            prepend = at.div_Scalar(combined, dx)
            third = at.mul_Scalar(_slice(self, d, -1), 1.5)
            second = at.mul_Scalar(_slice(self, d, -2, -1), 2)
            first = at.mul_Scalar(_slice(self, d, -3, -2), 0.5)
            combined = at.add_Tensor(at.sub_Tensor(first, second, 1), third, 1)
            append = at.div_Scalar(combined, dx)
        result.append(_cat(at.div_Scalar(center, 2), prepend, append, d))
    return tuple(result)


# Expressions as thunks, run as PyTorch's compiled code runs them: a binary operator's right
# operand first, then its left one, then the operator itself.


def _binary(fn, left, right):
    def run():
        r = right()
        return fn(left(), r)

    return run


def _add(left, right):
    return _binary(lambda a, b: at.add_Tensor(a, b, 1), left, right)


def _sub(left, right):
    return _binary(lambda a, b: at.sub_Tensor(a, b, 1), left, right)


def _mul(left, right):
    return _binary(at.mul_Tensor, left, right)


def _div(left, right):
    return _binary(at.div_Tensor, left, right)


def _neg(operand):
    return lambda: at.neg(operand())


def _scaled(factor, operand):
    """factor * tensor (a Scalar on the left): mul.Scalar."""
    return lambda: at.mul_Scalar(operand(), factor)


def _value(t):
    return lambda: t


def _combine(a, b, c, x0, x1, x2):
    """a * x0 + b * x1 + c * x2 (thunks)."""
    return _add(_add(_mul(a, x0), _mul(b, x1)), _mul(c, x2))()


def _with_coordinates(self, coordinates, dims, edge_order) -> tuple:
    """gradient_helper: spacing is a list of 1-D coordinate tensors, one per dim."""
    for coordinate in coordinates:
        if coordinate.device != self.device:
            raise RuntimeError(
                "torch.gradient expected each tensor to be on the same device, but got devices "
                f"{self.device} and {coordinate.device}!"
            )
    result = []
    for d, coordinate in zip(dims, coordinates):
        if coordinate.dim() != 1:
            raise RuntimeError(
                "torch.gradient expected each element of spacing to have one dimension, but got "
                f"an element with {coordinate.dim()} dimensions!"
            )
        d = wrap_dim(d, self.dim())
        shape = [1] * self.dim()
        shape[d] = -1

        def part(start, end=None, d=d):
            return lambda: _slice(self, d, start, end)

        ax_dx = at.diff(coordinate, 1, 0, None, None)

        def step(i, ax_dx=ax_dx):
            return lambda: at.select_int(ax_dx, 0, i)

        dx1, dx2 = _value(_slice(ax_dx, 0, 0, -1)), _value(_slice(ax_dx, 0, 1))
        a = _value(at.view(_div(_neg(dx2), _mul(dx1, _add(dx1, dx2)))(), shape))
        b = _value(at.view(_div(_sub(dx2, dx1), _mul(dx1, dx2))(), shape))
        c = _value(at.view(_div(dx1, _mul(dx2, _add(dx1, dx2)))(), shape))
        center = _combine(a, b, c, part(0, -2), part(1, -1), part(2))
        if edge_order == 1:
            prepend = _div(_sub(part(1, 2), part(0, 1)), step(0))()
            append = _div(_sub(part(-1), part(-2, -1)), step(-1))()
        else:
            first, second = step(0), step(1)
            a = _div(_neg(_add(_scaled(2.0, first), second)), _mul(first, _add(first, second)))()
            b = _div(_add(first, second), _mul(first, second))()
            c = _div(_neg(first), _mul(second, _add(first, second)))()
            prepend = _combine(_value(a), _value(b), _value(c), part(0, 1), part(1, 2), part(2, 3))
            last, before = step(-1), step(-2)
            a = _div(last, _mul(before, _add(last, before)))()
            b = _div(_neg(_add(last, before)), _mul(last, before))()
            c = _div(_add(_scaled(2, last), before), _mul(last, _add(last, before)))()
            append = _combine(_value(a), _value(b), _value(c), part(-3, -2), part(-2, -1), part(-1))
        result.append(_cat(center, prepend, append, d))
    return tuple(result)


def _dims(self, dim) -> list:
    """gradient_dim_preprocess: one dim, or all of them."""
    return [dim] if dim is not None else list(range(self.dim()))


def gradient_scalarint(self, spacing, dim, edge_order):
    dims = _dims(self, dim)
    unit = spacing if spacing is not None else 1.0
    sizes = [unit] * (1 if dim is not None else self.dim())
    _pre_check(
        self, len(sizes) if spacing is not None else None, dims if dim is not None else None,
        edge_order,
    )  # fmt: skip
    return _with_scalar_spacing(self, sizes, dims, edge_order)


def gradient_scalararray(self, spacing, dim, edge_order):
    sizes = [spacing] * len(dim)
    _pre_check(self, len(sizes), list(dim), edge_order)
    return _with_scalar_spacing(self, sizes, list(dim), edge_order)


def gradient_array(self, dim, edge_order):
    sizes = [1.0] * len(dim)
    _pre_check(self, len(sizes), list(dim), edge_order)
    return _with_scalar_spacing(self, sizes, list(dim), edge_order)


def gradient_scalarrayint(self, spacing, dim, edge_order):
    dims = _dims(self, dim)
    _pre_check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _with_scalar_spacing(self, list(spacing), dims, edge_order)


def gradient_scalarrayarray(self, spacing, dim, edge_order):
    _pre_check(self, len(spacing), list(dim), edge_order)
    return _with_scalar_spacing(self, list(spacing), list(dim), edge_order)


def gradient_tensorarrayint(self, spacing, dim, edge_order):
    dims = _dims(self, dim)
    _pre_check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _with_coordinates(self, list(spacing), dims, edge_order)


def gradient_tensorarray(self, spacing, dim, edge_order):
    _pre_check(self, len(spacing), list(dim), edge_order)
    return _with_coordinates(self, list(spacing), list(dim), edge_order)
