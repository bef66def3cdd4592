"""Padding: aten::pad, constant_pad_nd, reflection_pad{1,2,3}d, replication_pad{1,2,3}d
(with their backward ops) and _pad_circular.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. constant_pad_nd
is CompositeExplicitAutograd (narrow, fill_ and copy_ through the dispatcher, as
PadNd.cpp does); the reflection / replication kernels gather with one NumPy index
array per padded dim, and their backward ops scatter-add the same indices
(np.add.at over a 1-d index per dim). pad and _pad_circular are
CompositeImplicitAutograd. Mirrors ATen/native/PadNd.cpp, ReflectionPad.cpp,
ReplicationPadding.cpp and Padding.h.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.views import fmt_ints

__all__ = [
    "constant_pad_nd", "pad", "_pad_circular",
    "reflection_pad1d", "reflection_pad2d", "reflection_pad3d",
    "reflection_pad1d_backward", "reflection_pad2d_backward", "reflection_pad3d_backward",
    "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "replication_pad1d_backward", "replication_pad2d_backward", "replication_pad3d_backward",
]  # fmt: skip


def constant_pad_nd(self, pad, value):
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    sizes = self._sizes
    dims = self.dim()
    count = len(pad) // 2
    if dims < count:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)} while the input has {dims} dimensions."
        )
    lead = dims - count
    source = self
    all_non_positive = True
    for i in range(lead, dims):
        k = 2 * (dims - i - 1)
        if pad[k] < 0:
            source = at.narrow(source, i, -pad[k], source._sizes[i] + pad[k])
        elif pad[k] != 0:
            all_non_positive = False
        if pad[k + 1] < 0:
            source = at.narrow(source, i, 0, source._sizes[i] + pad[k + 1])
        elif pad[k + 1] != 0:
            all_non_positive = False
    if all_non_positive:
        return at.clone(source, None)
    shape = list(sizes[:lead])
    for i in range(count):
        k = len(pad) - (i + 1) * 2
        size = sizes[lead + i] + pad[k] + pad[k + 1]
        if size <= 0:
            raise RuntimeError(
                f"The input size {sizes[lead + i]}, plus negative padding {pad[k]} and "
                f"{pad[k + 1]} resulted in a negative output size, which is invalid. Check "
                f"dimension {lead + i} of your input."
            )
        shape.append(size)
    output = at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    at.fill__Scalar(output, value)
    target = output
    for i in range(lead, dims):
        k = 2 * (dims - i - 1)
        if pad[k] > 0:
            target = at.narrow(target, i, pad[k], target._sizes[i] - pad[k])
        if pad[k + 1] > 0:
            target = at.narrow(target, i, 0, target._sizes[i] - pad[k + 1])
    at.copy_(target, source, False)
    return output


# -- reflection and replication ------------------------------------------------------


def _source_index(size: int, left: int, right: int, reflect: bool) -> np.ndarray:
    """Which input element each output element along one dim reads."""
    positions = np.arange(-left, size + right)
    if not reflect:
        return np.clip(positions, 0, size - 1)
    period = 2 * (size - 1) if size > 1 else 1
    folded = np.abs(positions) % period
    return np.where(folded >= size, period - folded, folded)


def _check(name: str, self, pad, dims: int, reflect: bool) -> None:
    """The shape checks of ReflectionPad.cpp / ReplicationPadding.cpp (Padding.h)."""
    if len(pad) != 2 * dims:
        raise RuntimeError(f"padding size is expected to be {2 * dims}, but got: {len(pad)}")
    ndim = self.dim()
    batched = ndim == dims + 2
    if ndim not in (dims + 1, dims + 2) or 0 in self._sizes[1 if batched else 0 :]:
        raise RuntimeError(
            f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch "
            f"size and other non-zero dimensions for input, but got: {fmt_ints(self._sizes)}"
        )
    spatial = self._sizes[-dims:]
    for i in range(dims):
        size = spatial[dims - 1 - i]
        left, right = pad[2 * i], pad[2 * i + 1]
        if reflect and (left >= size or right >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({left}, {right}) at dimension "
                f"{ndim - 1 - i} of input {fmt_ints(self._sizes)}"
            )
    out = [spatial[d] + pad[2 * (dims - 1 - d)] + pad[2 * (dims - 1 - d) + 1] for d in range(dims)]
    # ReplicationPadding.cpp checks `oheight >= 1 || owidth >= 1` beyond 1-d: one positive
    # size passes, and a negative one then fails at the allocation
    if all(o < 1 for o in out) or (dims == 1 and out[0] < 1):
        letters = "DHW"[3 - dims :]
        given = ", ".join(f"{c}: {v}" for c, v in zip(letters, spatial, strict=True))
        calculated = " ".join(f"{c}: {v}" for c, v in zip(letters, out, strict=True))
        raise RuntimeError(f"input ({given}) is too small. Calculated output {calculated}")
    if any(o < 0 for o in out):
        shape = fmt_ints(list(self._sizes[:-dims]) + out)
        negative = next(o for o in out if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {shape}")
    shape = list(self._sizes[:-dims]) + out
    elements = 1
    for size in shape:
        elements *= size
    if elements * self.dtype.itemsize >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={fmt_ints(shape)}")
    if self.dtype == dtypes.bool:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


def _indices(self_sizes, pad, dims: int, reflect: bool):
    spatial = self_sizes[-dims:]
    result = []
    for d in range(dims):
        k = 2 * (dims - 1 - d)
        result.append(_source_index(spatial[d], pad[k], pad[k + 1], reflect))
    return result


def _pad_forward(name, self, pad, dims, reflect):
    _check(name, self, pad, dims, reflect)
    indices = _indices(self._sizes, pad, dims, reflect)
    shape = tuple(self._sizes[:-dims]) + tuple(len(i) for i in indices)
    if self.device.type == "meta":
        return at.empty_memory_format(list(shape), self.dtype, None, self.device, None, None)
    values = self.ndarray()
    lead = values.ndim - dims
    for d, index in enumerate(indices):
        values = np.take(values, index, axis=lead + d)
    return wrap_array(np.ascontiguousarray(values), self.dtype)


def _pad_backward(grad_output, self, pad, dims, reflect):
    indices = _indices(self._sizes, pad, dims, reflect)
    if grad_output.device.type == "meta" or self.device.type == "meta":
        return at.empty_memory_format(list(self._sizes), self.dtype, None, self.device, None, None)
    grad = grad_output.ndarray()
    lead = grad.ndim - dims
    for d, index in enumerate(indices):
        axis = lead + d
        moved = np.moveaxis(grad, axis, 0)
        summed = np.zeros((self._sizes[axis],) + moved.shape[1:], dtype=grad.dtype)
        np.add.at(summed, index, moved)
        grad = np.moveaxis(summed, 0, axis)
    return wrap_array(np.ascontiguousarray(grad), grad_output.dtype)


def reflection_pad1d(self, padding):
    return _pad_forward("reflection_pad1d", self, padding, 1, True)


def reflection_pad2d(self, padding):
    return _pad_forward("reflection_pad2d", self, padding, 2, True)


def reflection_pad3d(self, padding):
    return _pad_forward("reflection_pad3d", self, padding, 3, True)


def replication_pad1d(self, padding):
    return _pad_forward("replication_pad1d", self, padding, 1, False)


def replication_pad2d(self, padding):
    return _pad_forward("replication_pad2d", self, padding, 2, False)


def replication_pad3d(self, padding):
    return _pad_forward("replication_pad3d", self, padding, 3, False)


def reflection_pad1d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 1, True)


def reflection_pad2d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 2, True)


def reflection_pad3d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 3, True)


def replication_pad1d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 1, False)


def replication_pad2d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 2, False)


def replication_pad3d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 3, False)


# -- circular and the front door -----------------------------------------------------


def _pad_circular(self, pad):
    """PadNd.cpp's _pad_circular_symint: new_empty, then slices copied into place."""
    dims = len(pad) // 2
    ndim = self.dim()
    if len(pad) % 2:
        raise RuntimeError(f"Expected padding of even length, but got {len(pad)}")
    if ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor for padding with "
            f"{len(pad)} values, but got: {fmt_ints(self._sizes)}"
        )
    lead = ndim - dims
    shape = list(self._sizes[:lead])
    for i in range(dims):
        left, right = pad[len(pad) - 2 - 2 * i], pad[len(pad) - 1 - 2 * i]
        size = self._sizes[lead + i]
        if left > size or right > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size + left + right < 0:
            raise RuntimeError(
                f"Negative padding value is resulting in an empty dimension for dim {lead + i}"
            )
        shape.append(size + left + right)
    out = at.new_empty(self, shape, None, None, None, None)
    # the input's core, shifted by the left padding (negative padding crops)
    target, source = out, self
    for i in range(dims):
        dim = lead + i
        left, right = pad[len(pad) - 2 - 2 * i], pad[len(pad) - 1 - 2 * i]
        target = at.slice_Tensor(target, dim, max(left, 0), out._sizes[dim] - max(right, 0), 1)
    for i in range(dims):
        dim = lead + i
        left, right = pad[len(pad) - 2 - 2 * i], pad[len(pad) - 1 - 2 * i]
        size = self._sizes[dim]
        source = at.slice_Tensor(source, dim, max(-left, 0), size - max(-right, 0), 1)
    at.copy_(target, source, False)
    # the wrapped borders, one dim after the other, copied from the output itself
    for i in range(dims):
        dim = lead + i
        left, right = pad[len(pad) - 2 - 2 * i], pad[len(pad) - 1 - 2 * i]
        size = out._sizes[dim]
        if left > 0:
            to = at.slice_Tensor(out, dim, 0, left, 1)
            end = size - max(right, 0)
            src = at.slice_Tensor(out, dim, end - left, end, 1)
            at.copy_(to, src, False)
        if right > 0:
            to = at.slice_Tensor(out, dim, size - right, size, 1)
            src = at.slice_Tensor(out, dim, max(left, 0), max(left, 0) + right, 1)
            at.copy_(to, src, False)
    return out


_MODES = ("constant", "reflect", "replicate", "circular")

_SUPPORTED = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(self, pad, mode, value):  # noqa: A001
    """PadNd.cpp's pad_symint / _pad_enum: the mode and the sizes pick the operator."""
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    ndim = self.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {ndim}"
        )
    if mode == "constant":
        return at.constant_pad_nd(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    dims = len(pad) // 2
    if not 1 <= dims <= 3 or ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n{_SUPPORTED}"
        )
    if mode == "circular":
        return at._pad_circular(self, pad)
    ops = {
        ("reflect", 1): at.reflection_pad1d, ("reflect", 2): at.reflection_pad2d,
        ("reflect", 3): at.reflection_pad3d, ("replicate", 1): at.replication_pad1d,
        ("replicate", 2): at.replication_pad2d, ("replicate", 3): at.replication_pad3d,
    }  # fmt: skip
    return ops[(mode, dims)](self, pad)
