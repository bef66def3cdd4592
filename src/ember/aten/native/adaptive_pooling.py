"""The CPU / Meta kernels of _adaptive_avg_pool2d, adaptive_max_pool2d and their backward
ops: PyTorch's checks, then pool_numpy's separable averages and gathered windows.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors (shapes only on
meta). Mirrors ATen/native/AdaptiveAveragePooling.cpp and AdaptiveMaxPooling2d.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native import pool_reduced as reduced
from ember.aten.native.pool_numpy import (
    adaptive_avg,
    adaptive_avg_backward,
    adaptive_max,
    max_pool_backward,
)
from ember.aten.native.views import fmt_ints, scalar_type_name_of

__all__ = [
    "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward",
    "adaptive_max_pool2d", "adaptive_max_pool2d_backward",
]  # fmt: skip


def _floating_only(name, dtype):
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name_of(dtype)}'")


def _empty(shape, like, dtype=None):
    return at.empty_memory_format(list(shape), dtype or like.dtype, None, like.device, None, None)


def _adaptive_avg_pool2d(self, output_size):
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    ndim = self.dim()
    if ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {fmt_ints(self._sizes)}"
        )
    for i in (-2, -1):
        if self._sizes[i] <= 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {fmt_ints(self._sizes)} with dimension "
                f"{i + ndim} being empty"
            )
    _floating_only("adaptive_avg_pool2d", self.dtype)
    shape = list(self._sizes[:-2]) + [int(o) for o in output_size]
    if self.device.type == "meta":
        return _empty(shape, self)
    x = self.ndarray()
    average = reduced.adaptive_avg if reduced.is_reduced(x.dtype) else adaptive_avg
    return wrap_array(average(x, [int(o) for o in output_size]), self.dtype)


def _adaptive_avg_pool2d_backward(grad_output, self):
    ndim = grad_output.dim()
    for i in range(1, ndim):
        if grad_output._sizes[i] <= 0:
            raise RuntimeError(
                "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for "
                f"non-batch dimensions, but grad_output has sizes {fmt_ints(grad_output._sizes)} "
                f"with dimension {i} being empty"
            )
    if grad_output.device.type == "meta" or self.device.type == "meta":
        return _empty(self._sizes, self)
    g = grad_output.ndarray()
    if reduced.is_reduced(g.dtype):
        return wrap_array(reduced.adaptive_avg_backward(g, self._sizes, 2), self.dtype)
    return wrap_array(adaptive_avg_backward(g, self._sizes), self.dtype)


def adaptive_max_pool2d(self, output_size):
    ndim = self.dim()
    if ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {fmt_ints(self._sizes)}"
        )
    for i in range(1, ndim):
        if self._sizes[i] <= 0:
            raise RuntimeError(
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {fmt_ints(self._sizes)} with dimension {i} "
                "being empty"
            )
    if len(output_size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    shape = list(self._sizes[:-2]) + [int(o) for o in output_size]
    negative = [s for s in shape if s < 0]
    if negative:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {negative[0]}: {fmt_ints(shape)}"
        )
    _floating_only("adaptive_max_pool2d", self.dtype)
    if self.device.type == "meta":
        return _empty(shape, self), _empty(shape, self, dtypes.int64)
    values, indices = adaptive_max(self.ndarray(), [int(o) for o in output_size])
    return wrap_array(values, self.dtype), wrap_array(indices, dtypes.int64)


def adaptive_max_pool2d_backward(grad_output, self, indices):
    if grad_output.device.type == "meta" or self.device.type == "meta":
        return _empty(self._sizes, self)
    g = grad_output.ndarray()
    backward = reduced.max_pool_backward if reduced.is_reduced(g.dtype) else max_pool_backward
    return wrap_array(backward(g, indices.ndarray(), self._sizes, 2), self.dtype)
