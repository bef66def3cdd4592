"""The Meta kernels of in-place mul_ / add_ / sub_ / div_: PyTorch's Python meta registrations.

Layer: aten/meta. In: the in-place overload's arguments, on the Meta backend (a meta
`self`, or any meta operand). Out: `self`, after the checks those kernels make.
Mirrors torch/_meta_registrations.py (meta_binop_inplace, meta_binop_inplace_alpha,
meta_div_inplace, check_inplace_broadcast) and torch/_refs/__init__.py
(_broadcast_shapes). PyTorch registers them for the Meta key of mul_.Tensor,
add_.Tensor, sub_.Tensor and div_.Tensor, over the structured meta function: a
meta tensor gets their rules alone (no alpha checks, no device check, the
int / bool promotion rules of add_ and sub_, the result-type check of div_
only), and their messages (a torch.Size, a list). A Python kernel sees a
wrapped number as the Python number it stands for (torch::jit::toPyObject).
"""

from __future__ import annotations

from ember._c10 import dtypes

__all__ = ["python_meta_mul_", "python_meta_add_", "python_meta_sub_", "python_meta_div_"]


def _size_text(sizes) -> str:
    return "ember.Size([" + ", ".join(str(s) for s in sizes) + "])"


def _broadcast_shapes(*shapes) -> list:
    """torch._refs._broadcast_shapes, with its errors (the list as it stood then)."""
    common = [1] * max(len(shape) for shape in shapes)
    for index, shape in enumerate(shapes):
        for dim in range(-1, -1 - len(shape), -1):
            if shape[dim] == common[dim]:
                continue
            if common[dim] == 1:
                if shape[dim] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[dim] = shape[dim]
            if shape[dim] == 1:
                continue
            if common[dim] != shape[dim]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[dim]} at {dim}! "
                    f"Mismatching argument at index {index} had {_size_text(shape)}; but "
                    f"expected shape should be broadcastable to {common}"
                )
    return common


def _check_inplace_broadcast(self, other) -> None:
    if not _is_tensor(other):
        return
    broadcast = tuple(_broadcast_shapes(self._sizes, other._sizes))
    if broadcast != self._sizes:
        raise RuntimeError(
            f"output with shape {_size_text(self._sizes)} doesn't match the broadcast shape "
            f"{broadcast}"
        )


def _is_tensor(value) -> bool:
    """A tensor as the Python kernel sees it: not a wrapped number."""
    return hasattr(value, "_key_bits") and not value._is_wrapped_number


def _python_value(value):
    """A wrapped number as the Python number it stands for (bool, int, float, complex)."""
    return value.item() if value._is_wrapped_number else value


def _is_integer(dtype) -> bool:
    return dtype is not dtypes.bool and not (dtype.is_floating_point or dtype.is_complex)


def python_meta_mul_(self, other):
    """meta_binop_inplace: a broadcast check, nothing more."""
    _check_inplace_broadcast(self, other)
    return self


def _binop_inplace_alpha(self, other):
    """meta_binop_inplace_alpha: int.add_(float) and bool.add_(non-bool) are refused."""
    if _is_tensor(other):
        floatic = other.dtype.is_floating_point
        booleanic = other.dtype is dtypes.bool
    else:
        value = _python_value(other)
        floatic = isinstance(value, float)
        booleanic = isinstance(value, bool)
    if _is_integer(self.dtype) and floatic:
        raise RuntimeError(
            "Promotion of int.add/sub_(float) in in-place ops are not possible due to element "
            "size change."
        )
    if self.dtype is dtypes.bool and not booleanic:
        raise RuntimeError(
            "Promotion of bool.add/sub_(others) in in-place ops are not possible due to element "
            "size change."
        )
    _check_inplace_broadcast(self, other)
    return self


def python_meta_add_(self, other, alpha):
    return _binop_inplace_alpha(self, other)


def python_meta_sub_(self, other, alpha):
    return _binop_inplace_alpha(self, other)


def _can_safe_cast(cast_from, cast_to) -> bool:
    """torch._prims_common.can_safe_cast_to: no step down bool < int < float < complex."""

    def rank(dtype):
        if dtype.is_complex:
            return 3
        if dtype.is_floating_point:
            return 2
        return 0 if dtype is dtypes.bool else 1

    return rank(cast_from) <= rank(cast_to)


def python_meta_div_(self, other):
    """meta_div_inplace: the INT_TO_FLOAT result type must cast safely to self's dtype."""
    result = dtypes.binary_result_dtype(self, other)
    if not (result.is_floating_point or result.is_complex):
        result = dtypes.get_default_dtype()
    if not _can_safe_cast(result, self.dtype):
        raise RuntimeError(
            f"result type {result} can't be cast to the desired output type {self.dtype}"
        )
    _check_inplace_broadcast(self, other)
    return self
