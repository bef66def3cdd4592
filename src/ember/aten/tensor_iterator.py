"""TensorIterator, the part ember needs: broadcasting, the common dtype, output strides.

Layer: aten. In: the operands of a pointwise op. Out: an OutputSpec per
output (sizes, strides, dtype, device) and the dtype to compute in.
Mirrors ATen/TensorIterator.cpp: compute_shape (broadcast, with PyTorch's
error text), compute_types (promotion, `promote_integer_inputs_to_float`),
and compute_strides / reorder_dimensions (the output takes the memory layout
of its inputs: a transposed input gives a transposed output).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.tensor_impl import (
    contiguous_strides,
    is_channels_last,
    is_contiguous_strides,
)


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    """infer_size: the broadcast of two shapes, or PyTorch's RuntimeError."""
    if a == b:
        return a
    # a trailing-suffix operand ((64,) against (128, 64), () against anything)
    if len(b) < len(a) and a[len(a) - len(b) :] == b:
        return a
    if len(a) < len(b) and b[len(b) - len(a) :] == a:
        return b
    ndim = max(len(a), len(b))
    result = []
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        dim_a = len(a) - 1 - offset
        dim_b = len(b) - 1 - offset
        size_a = a[dim_a] if dim_a >= 0 else 1
        size_b = b[dim_b] if dim_b >= 0 else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {i}"
            )
        result.append(size_b if size_a == 1 else size_a)
    return tuple(reversed(result))


def broadcast_all(shapes) -> tuple:
    result = ()
    for shape in shapes:
        result = broadcast_shapes(result, shape)
    return result


def _broadcast_strides(tensor, shape: tuple) -> list[int]:
    """The operand's strides in the broadcast shape (0 where it is broadcast)."""
    offset = len(shape) - len(tensor._sizes)
    strides = [0] * offset
    for size, stride, full in zip(tensor._sizes, tensor._strides, shape[offset:]):
        strides.append(0 if size == 1 and full != 1 else stride)
    return strides


def _should_swap(operands: list[list[int]], shape: tuple, dim0: int, dim1: int) -> int:
    for strides in operands:
        stride0, stride1 = strides[dim0], strides[dim1]
        if stride0 == 0 or stride1 == 0:
            continue
        if stride0 < stride1:
            return -1
        if stride0 > stride1:
            return 1
        if shape[dim0] > shape[dim1]:
            return 1
    return 0


def _fast_setup_strides(inputs, shape: tuple) -> tuple | None:
    """compute_fast_setup_type: same-shape operands that share a dense layout pass it on."""
    if any(t._sizes != shape for t in inputs):
        return None
    if all(is_contiguous_strides(t._sizes, t._strides) for t in inputs):
        return contiguous_strides(shape)
    if len(shape) == 4 and all(
        is_channels_last(t._sizes, t._strides, "channels_last") for t in inputs
    ):
        return channels_last_strides(shape)
    if all(_non_overlapping_and_dense(t) for t in inputs):
        first = inputs[0]._strides
        if all(t._strides == first for t in inputs):
            return first
    return None


def output_strides(inputs, shape: tuple) -> tuple:
    """The strides TensorIterator gives a fresh output: the fast setup when it applies,
    else reorder_dimensions' permutation (the output follows its inputs' memory order)."""
    ndim = len(shape)
    if ndim <= 1:
        return contiguous_strides(shape)
    fast = _fast_setup_strides(inputs, shape)
    if fast is not None:
        return fast
    if 0 not in shape and all(t._strides == contiguous_strides(t._sizes) for t in inputs):
        # Exactly contiguous operands (broadcast or not) never make reorder_dimensions
        # swap: inner strides are never above outer ones, and a tie that swaps needs a
        # size-0 dim (contiguous (0, 1) has strides (1, 1): a (0, 1) output of it and a
        # number gets strides (1, 0), as in PyTorch).
        return contiguous_strides(shape)
    operands = [_broadcast_strides(t, shape) for t in inputs]
    perm = list(range(ndim - 1, -1, -1))  # fastest-moving dimension first
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = _should_swap(operands, shape, perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)  # "just an inverted order": a contiguous output
    strides = [0] * ndim
    running = 1
    for dim in perm:  # compatible_stride, then invert_perm
        strides[dim] = running
        running *= shape[dim]
    return tuple(strides)


def _non_overlapping_and_dense(t) -> bool:
    """is_non_overlapping_and_dense, as c10/core/Contiguity.h computes it."""
    from ember.aten.native.layout import is_non_overlapping_and_dense

    return is_non_overlapping_and_dense(t)


class OutputSpec:
    """What a structured meta function says about one output."""

    __slots__ = ("sizes", "strides", "dtype", "device")

    def __init__(self, sizes: tuple, strides: tuple | None, dtype, device) -> None:
        self.sizes = sizes
        self.strides = strides if strides is not None else contiguous_strides(sizes)
        self.dtype = dtype
        self.device = device

    def __repr__(self) -> str:
        return f"OutputSpec({self.sizes}, {self.strides}, {self.dtype}, {self.device})"


def check_same_device(op_name: str, tensors) -> object:
    """All tensor operands on one device (a 0-dim CPU tensor may join any device)."""
    device = None
    for t in tensors:
        if device is None:
            device = t.device
        elif t.device != device:
            if t.device.type == "cpu" and not t._sizes:
                continue
            if device.type == "cpu" and len(tensors) > 1 and not tensors[0]._sizes:
                device = t.device
                continue
            if "meta" in (device.type, t.device.type):
                # a meta operand takes the call to PyTorch's Python meta kernels, whose
                # check_same_device (torch/_prims_common) words it this way
                raise RuntimeError(
                    f"Tensor on device {t.device} is not on the expected device {device}!"
                )
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {device} and {t.device}!"
            )
    return device


def channels_last_strides(shape: tuple) -> tuple:
    """Strides of a dense NHWC layout for an NCHW shape (get_channels_last_strides_2d)."""
    _, c, h, w = (max(size, 1) for size in shape)
    return (h * w * c, 1, w * c, c)


def _same_layout_spec(tensors, out_dtype):
    """The common case: every operand has one shape, one dtype, one device, dense strides.

    Then broadcasting, promotion and stride permutation are all no-ops, and
    the output takes the operands' layout (TensorIterator's fast setup).
    """
    first = tensors[0]
    sizes, strides, dtype, device = first._sizes, first._strides, first.dtype, first.device
    for other in tensors[1:]:
        if (
            other._sizes != sizes
            or other._strides != strides
            or other.dtype is not dtype
            or other.device is not device
        ):
            return None
    if strides != contiguous_strides(sizes) or getattr(first, "_is_wrapped_number", False):
        return None
    spec = OutputSpec(sizes, strides, out_dtype if out_dtype is not None else dtype, device)
    return spec, dtype


def pointwise_spec(
    tensors,
    *,
    promote_integer_inputs_to_float: bool = False,
    out_dtype=None,
):
    """Broadcast shape, common dtype and output spec of a TensorIterator over ``tensors``.

    Returns ``(spec, common_dtype)``: the dtype to compute in, and the output
    (whose dtype is ``out_dtype`` when given, e.g. bool for comparisons).
    """
    fast = _same_layout_spec(tensors, out_dtype)
    if fast is not None and not (
        promote_integer_inputs_to_float and not (fast[1].is_floating_point or fast[1].is_complex)
    ):
        return fast
    device = check_same_device("", tensors)
    if len(tensors) == 1:
        shape = tensors[0]._sizes
        common = dtypes.result_type(tensors[0])
    elif len(tensors) == 2:
        shape = broadcast_shapes(tensors[0]._sizes, tensors[1]._sizes)
        common = dtypes.binary_result_dtype(tensors[0], tensors[1])
    else:
        shape = broadcast_all(t._sizes for t in tensors)
        common = dtypes.result_type(*tensors)
    if promote_integer_inputs_to_float and not (common.is_floating_point or common.is_complex):
        common = dtypes.get_default_dtype()
    strides = output_strides(tensors, shape)
    spec = OutputSpec(shape, strides, out_dtype if out_dtype is not None else common, device)
    return spec, common
