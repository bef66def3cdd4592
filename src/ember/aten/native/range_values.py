"""The exact values PyTorch's CPU kernels give arange and linspace, rounding included.

Layer: aten/native. In: the element count, start / step (or end) already in
the kernel's types, the tensor's NumPy type. Out: a 1-d NumPy array of values.
Mirrors arange_kernel / linspace_kernel in ATen/native/cpu/RangeFactoriesKernel.cpp
as built for PyTorch's default AVX2 capability.

Note [Vectorized range values]
------------------------------
PyTorch fills an arange with `cpu_serial_kernel_vec`: while at least two
vectors remain it writes whole vectors, each `Vectorized::arange(base, step)`
with `base = start + step * i` at the vector's first index i and the elements
`base + j * step`; the tail is written one element at a time as
`start + step * i`. The compiler contracts each `a + b * c` into one fused
multiply-add, so the product is not rounded on its own: `arange(-1.5, 2.7, 0.3)`
holds -5.55e-17 where naive arithmetic gives 0. linspace's values are one
fused multiply-add per element, from `start` below halfway and from `end`
above (measured against PyTorch 2.13; its vector path gives the same values). ember replays the same
sequence: the fused multiply-add is computed in a wider type (long double
for double, double for float; exact for the small integer factors involved)
and rounded once to the kernel's type. An AVX2 vector holds 32 bytes.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []

VECTOR_BYTES = 32  # AVX2


def _wider(np_type):
    return np.longdouble if np_type == np.float64 else np.float64


def _fma(a, b, c, np_type):
    """a * b + c with one rounding to ``np_type`` (float32 / float64)."""
    wide = _wider(np_type)
    return (np.asarray(a, wide) * np.asarray(b, wide) + np.asarray(c, wide)).astype(np_type)


def _vector_split(count: int, itemsize: int):
    """The indices written as whole vectors, their vector's first index, and the tail."""
    width = VECTOR_BYTES // itemsize
    main = (count // (2 * width)) * 2 * width
    index = np.arange(count, dtype=np.int64)
    vector_index = index[:main]
    return vector_index, (vector_index // width) * width, index[main:]


def _to_scalar(values, scalar_type):
    """The kernel's conversion to scalar_t: rounding for floats, truncation for integers."""
    with np.errstate(all="ignore"):
        return values.astype(scalar_type)


def arange_values(count: int, start, step, scalar_type, acc_type) -> np.ndarray:
    """arange_kernel: `start + step * i` in the accumulate type, vector by vector."""
    scalar_type, acc_type = np.dtype(scalar_type), np.dtype(acc_type)
    if acc_type.kind != "f":  # integral: exact in int64, wrapping into narrow types
        index = np.arange(count, dtype=np.int64)
        return _to_scalar(np.int64(start) + np.int64(step) * index, scalar_type)
    vector_index, first, tail = _vector_split(count, scalar_type.itemsize)
    base = _to_scalar(_fma(step, first, start, acc_type), scalar_type).astype(acc_type)
    if scalar_type.itemsize == 2 and scalar_type.kind not in "fiu":  # BFloat16 vectors:
        # the product rounds on its own (Half's, like float's, are fused)
        vector = base + (vector_index - first).astype(acc_type) * acc_type.type(step)
    else:
        vector = _fma(vector_index - first, step, base, acc_type)
    scalar = _fma(step, tail, start, acc_type)
    return _to_scalar(np.concatenate([vector, scalar]), scalar_type)


def _linspace_point(index, steps: int, start, end, step, compute_type):
    """`start + step * i` below halfway, `end - step * (steps - i - 1)` from there on."""
    halfway = steps // 2
    low = _fma(step, index, start, compute_type)
    high = _fma(-step, steps - index - 1, end, compute_type)
    return np.where(index < halfway, low, high)


def linspace_values(steps: int, start, end, scalar_type) -> np.ndarray:
    """linspace_kernel for steps >= 2: one fused multiply-add per element from the nearer end.

    Integral types compute in double (from bounds already truncated) and truncate.
    """
    scalar_type = np.dtype(scalar_type)
    half_precision = scalar_type.itemsize == 2 and scalar_type.kind not in "iu"
    if half_precision or scalar_type.kind == "c":
        return _linspace_per_operation(steps, start, end, scalar_type)
    compute = np.dtype(np.float64) if scalar_type.kind in "iub" else scalar_type
    first = compute.type(start)
    last = compute.type(end)
    step = (last - first) / compute.type(steps - 1)
    index = np.arange(steps, dtype=np.int64)
    return _to_scalar(_linspace_point(index, steps, first, last, step, compute), scalar_type)


def _linspace_per_operation(steps: int, start, end, scalar_type) -> np.ndarray:
    """Half, bfloat16, complex: each operation rounds on its own (no fused multiply-add)."""
    first = np.asarray(start, scalar_type)
    last = np.asarray(end, scalar_type)
    step = (last - first) / np.asarray(steps - 1, scalar_type)
    index = np.arange(steps)
    halfway = steps // 2
    low = first + step * index[:halfway].astype(scalar_type)
    high = last - step * (steps - index[halfway:] - 1).astype(scalar_type)
    return np.concatenate([low, high]).astype(scalar_type)
