"""torch.testing.make_tensor: a random tensor of a given shape, dtype and device for tests.

Layer: testing. In: the shape and options. Out: a tensor whose values are drawn
uniformly from [low, high) (ember's generator: the shapes, dtypes, bounds, contiguity
and requires_grad are PyTorch's, the values are not the ones PyTorch's generator draws).
Mirrors torch/testing/_creation.py, its defaults, bounds and errors.
"""

from __future__ import annotations

import collections.abc
import math
import warnings

import numpy as np

try:  # ml_dtypes' finfo knows bfloat16 too (ember's bfloat16 comes from it)
    from ml_dtypes import finfo as _np_finfo
except ImportError:  # pragma: no cover
    _np_finfo = np.finfo

from ember._c10 import dtypes
from ember._tensor import tensor_from_numpy
from ember.aten._generated import python_functions as F

__all__ = ["make_tensor"]

_INTEGRAL = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_BOOL_OR_INTEGRAL = (dtypes.bool, *_INTEGRAL)
_FLOATING = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_COMPLEX = (dtypes.complex32, dtypes.complex64, dtypes.complex128)
_REAL_OF = {
    dtypes.complex32: dtypes.float16,
    dtypes.complex64: dtypes.float32,
    dtypes.complex128: dtypes.float64,
}


def _finfo(dtype):
    """(min, max, tiny) of torch.finfo(dtype), as Python floats."""
    info = _np_finfo(_REAL_OF.get(dtype, dtype).np_dtype)
    return float(info.min), float(info.max), float(info.tiny)


def _bounds(dtype, low, high, *, lowest, highest, default_low, default_high):
    """The user's low/high, defaulted, checked and clamped to what the dtype holds."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING + _COMPLEX:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
            "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), "
            f"but {dtype} only supports [{lowest}, {highest})"
        )
    low = min(max(low, lowest), highest)
    high = min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(shape, dtype, device, low, high):
    """Values uniform in [low, high), drawn by ember's generator (each part of a complex)."""
    if np.float64(high) - np.float64(low) >= _finfo(dtype)[1]:  # keep the span finite
        scale, low, high = 2.0, low / 2, high / 2
    else:
        scale = 1.0
    parts = 2 if dtype in _COMPLEX else 1
    draws = [F.rand(shape, dtype=dtypes.float64).numpy() for _ in range(parts)]
    values = [(low + (high - low) * u) * scale for u in draws]
    array = values[0] if parts == 1 else values[0] + 1j * values[1]
    return tensor_from_numpy(np.asarray(array), device=device, dtype=dtype)


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format=None,
):
    """A tensor of `shape` filled with values uniform in [low, high) (torch.testing.make_tensor)."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
            f"but got {noncontiguous=} and {memory_format=}"
        )
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, "
            f"but got {dtype=}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dim, then every other element from the second
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is dtypes.bool:
        low, high = _bounds(dtype, low, high, lowest=0, highest=2, default_low=0, default_high=2)
        result = F.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = np.iinfo(dtype.np_dtype)
        highest = int(info.max) + (1 if dtype is not dtypes.int64 else 0)
        low, high = _bounds(
            dtype,
            low,
            high,
            lowest=int(info.min),
            highest=highest,
            default_low=-9,
            default_high=10,
        )
        result = F.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING + _COMPLEX:
        lowest, highest, _ = _finfo(dtype)
        low, high = _bounds(
            dtype, low, high, lowest=lowest, highest=highest, default_low=-9, default_high=9
        )
        result = _uniform(shape, dtype, device, low, high)
    else:
        raise TypeError(
            f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
            " To request support, file an issue at: https://github.com/pytorch/pytorch/issues"
        )
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else _finfo(dtype)[2]
    if dtype in _FLOATING + _COMPLEX:
        result.requires_grad = requires_grad
    return result
