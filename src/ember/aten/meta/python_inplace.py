"""PyTorch's Python meta kernels of the in-place binary ops and of masked_fill.

Layer: aten/meta. In: the in-place operator's arguments on the Meta backend. Out: `self`,
or PyTorch's error. PyTorch's Meta kernels of add_, sub_, mul_, div_ (torch/
_meta_registrations.py: meta_binop_inplace_alpha, meta_binop_inplace, meta_div_inplace)
and of masked_fill (torch/_refs: masked_fill, where, _maybe_broadcast) are Python: they
check less than the C++ kernels (no device or dtype check for mul_), and word what they
check their own way ("output with shape torch.Size([0]) doesn't match the broadcast shape
(2, 0)"). The generated Meta kernels of `PYTHON_META_INPLACE` (codegen/gen_registrations.py)
call these when `self` is a meta tensor; a CPU `self` keeps the C++ kernel's checks, since
PyTorch's Meta kernel would return it unchanged.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._size import Size

__all__ = [
    "broadcast_shapes_ref",
    "check_inplace_broadcast",
    "binop_inplace",
    "binop_inplace_alpha",
    "div_inplace",
    "masked_fill_ref",
    "masked_fill_inplace",
    "check_same_device",
]


def broadcast_shapes_ref(*shapes) -> list:
    """torch._refs._broadcast_shapes: None entries skipped, PyTorch's message on a mismatch."""
    shapes = [tuple(shape) for shape in shapes if shape is not None]
    common = [1] * max((len(shape) for shape in shapes), default=0)
    for index, shape in enumerate(shapes):
        for position in range(-1, -1 - len(shape), -1):
            if shape[position] == common[position]:
                continue
            if common[position] == 1:
                common[position] = shape[position]
            if shape[position] != 1 and common[position] != shape[position]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[position]} at "
                    f"{position}! Mismatching argument at index {index} had {Size(shape)!r}; but "
                    f"expected shape should be broadcastable to {common}"
                )
    return common


def check_inplace_broadcast(self_shape: tuple, *shapes) -> None:
    broadcast = tuple(broadcast_shapes_ref(self_shape, *shapes))
    if broadcast != tuple(self_shape):
        raise RuntimeError(
            f"output with shape {Size(self_shape)!r} doesn't match the broadcast shape {broadcast}"
        )


def _shape_of(other):
    return other._sizes if hasattr(other, "_sizes") else None


def binop_inplace(self, other):
    """meta_binop_inplace (mul_)."""
    shape = _shape_of(other)
    if shape is not None:
        check_inplace_broadcast(self._sizes, shape)
    return self


def _kind(value, kind: str) -> bool:
    dtype = getattr(value, "dtype", None)
    if dtype is None:  # a Python number
        python = {"bool": bool, "int": int, "float": float}[kind]
        return isinstance(value, python) and (kind == "bool" or not isinstance(value, bool))
    if kind == "bool":
        return dtype is dtypes.bool
    if kind == "int":
        return dtype is not dtypes.bool and not (dtype.is_floating_point or dtype.is_complex)
    return dtype.is_floating_point


def binop_inplace_alpha(self, other, alpha=1):
    """meta_binop_inplace_alpha (add_, sub_)."""
    if _kind(self, "int") and _kind(other, "float"):
        raise RuntimeError(
            "Promotion of int.add/sub_(float) in in-place ops are not possible due to element "
            "size change."
        )
    if _kind(self, "bool") and not _kind(other, "bool"):
        raise RuntimeError(
            "Promotion of bool.add/sub_(others) in in-place ops are not possible due to element "
            "size change."
        )
    return binop_inplace(self, other)


def div_inplace(self, other):
    """meta_div_inplace: the INT_TO_FLOAT result type must cast safely to `self`."""
    result = dtypes.result_type(self, other)
    if not (result.is_floating_point or result.is_complex):
        result = dtypes.get_default_dtype()
    target = self.dtype
    refused = (result.is_complex and not target.is_complex) or (
        result.is_floating_point and not (target.is_floating_point or target.is_complex)
    )
    if refused or (target is dtypes.bool and result is not dtypes.bool):
        raise RuntimeError(
            f"result type {result} can't be cast to the desired output type {target}"
        )
    return binop_inplace(self, other)


# -- masked_fill: torch._refs.masked_fill (functional, masked_fill_.Tensor) ----------------


def _python_type(dtype) -> type:
    """utils.dtype_to_type."""
    if dtype is dtypes.bool:
        return bool
    if dtype.is_complex:
        return complex
    return float if dtype.is_floating_point else int


def check_same_device(*tensors) -> None:
    """utils.check_same_device(..., allow_cpu_scalar_tensors=True)."""
    device = None
    for t in tensors:
        if t.device.type == "cpu" and not t._sizes:
            continue
        if device is None:
            device = t.device
        elif t.device != device:
            raise RuntimeError(
                f"Tensor on device {t.device} is not on the expected device {device}!"
            )


def masked_fill_ref(self, mask, value) -> tuple:
    """The checks of torch._refs.masked_fill and of the `where` it calls; the result's shape."""
    python_type = _python_type(self.dtype)
    tensors = [mask]
    if hasattr(value, "_sizes"):
        if value._sizes:
            raise RuntimeError(
                "only supports a 0-dimensional value tensor, but got tensor with "
                f"{len(value._sizes)} dimension"
            )
        if value.device != self.device:
            raise RuntimeError("Expected `value` to be on same device as `a`")
        value_type = _python_type(value.dtype)
        tensors.append(value)
    else:
        value_type = complex if isinstance(value, complex) else type(value)
    if value_type is complex and python_type is not complex:
        raise RuntimeError(f"could not convert to type {python_type} without overflow")
    tensors.append(self)
    check_same_device(*tensors)
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"expected predicate to be bool, got {mask.dtype}")
    # where() gets a Python number as a 0-dim tensor: it counts in the broadcast
    shapes = [t._sizes for t in tensors]
    if len(shapes) == 2:
        shapes.insert(1, ())
    return tuple(broadcast_shapes_ref(*shapes))


def masked_fill_inplace(self, mask, value):
    """meta_masked_fill_ (masked_fill_.Scalar): the mask must broadcast to `self`."""
    check_inplace_broadcast(self._sizes, mask._sizes)
    return self
