"""torch.range's kernels: [start, end] inclusive (the deprecated cousin of arange).

Layer: aten/native. In: Scalars (Python numbers) and the factory options, or an out=
tensor. Out: the filled tensor (shaped only on Meta). Mirrors RangeFactories.cpp's
range_out: the bounds converted to the accumulate type and checked there, the size
`(end - start) / step + 1` truncated in that type, element i = start + i * step; the
functional overloads (TensorFactories.cpp's range) fill an empty tensor of the options'
dtype, the default dtype when none is given.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.ranges import _acc_dtype, _accumulated, _cpp, _not_implemented
from ember.aten.native.resize import resize_impl

__all__ = ["range", "range_out", "range_out_no_step", "range_step"]


def range_out(start, end, step, out):
    dtype = out.dtype
    if dtype is dtypes.bool or dtype.is_complex or dtype in dtypes.BAREBONES_UNSIGNED:
        raise _not_implemented("range_cpu", dtype)
    acc = _acc_dtype(dtype)
    x_start, x_end, x_step = _accumulated(start, end, step, acc)
    if x_step == 0:
        raise RuntimeError("step must be nonzero")
    if acc.is_floating_point and not (math.isfinite(x_start) and math.isfinite(x_end)):
        raise RuntimeError(f"unsupported range: {_cpp(x_start)} -> {_cpp(x_end)}")
    if not ((x_step > 0 and x_end >= x_start) or (x_step < 0 and x_end <= x_start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if acc.is_floating_point:
        span = acc.np_dtype.type(x_end) - acc.np_dtype.type(x_start)
        size = int(span / acc.np_dtype.type(x_step) + acc.np_dtype.type(1))
    else:
        quotient = abs(x_end - x_start) // abs(x_step)
        size = (quotient if (x_end - x_start >= 0) == (x_step > 0) else -quotient) + 1
    if out.numel() != size:
        resize_impl(out, (size,))
    if out.device.type != "meta" and size > 0:
        index = np.arange(size, dtype=acc.np_dtype)
        values = acc.np_dtype.type(x_start) + index * acc.np_dtype.type(x_step)
        out.ndarray()[...] = values.astype(dtype.np_dtype)
    return out


def range_out_no_step(start, end, out):
    return at.range_out(start, end, 1, out)


def range_step(start, end, step, dtype, layout, device, pin_memory):
    result = at.empty_memory_format([0], dtype, layout, device, pin_memory, None)
    return at.range_out(start, end, step, result)


def range(start, end, dtype, layout, device, pin_memory):  # noqa: A001 (the kernel's name)
    return range_step(start, end, 1, dtype, layout, device, pin_memory)
