"""From generator words to values, as PyTorch's CPU kernels turn them: uniform, normal,
integers in a range, Bernoulli draws.

Layer: aten/native. In: a generator (ember.random.Generator), a count of elements
in iteration order, a dtype. Out: NumPy arrays of the values PyTorch's CPU
kernels write for the same generator state, leaving the generator where
PyTorch's would be. Mirrors ATen/core/TransformationHelper.h,
ATen/core/DistributionsHelper.h and the normal kernel of
ATen/native/cpu/DistributionKernels.cpp and DistributionTemplates.h.

Note [Random values are PyTorch's]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every value is computed from the same words with the same roundings as PyTorch's
kernels: uniform floats keep the low `digits` bits of one word (two for double),
normal values come from Box-Muller either in blocks of 16 (`normal_fill`: a tensor of
at least 16 contiguous elements) or one at a time in double with the second sample
cached on the generator (`normal_distribution<double>`), integers are `word % range
+ low`, Bernoulli draws compare a double uniform with p. Where PyTorch rounds to
float, ember rounds the same intermediate to float32. PyTorch's Bernoulli on Intel
CPUs goes through MKL instead, whose stream ember does not reproduce; the values here
are those of its portable kernel, which other CPUs run.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes

__all__ = [
    "uniform", "normal", "random_from_to", "bernoulli", "memory_order", "write_in_memory_order",
]  # fmt: skip

# uniform_kernel draws half and bfloat16 as float and rounds
_DIGITS = {dtypes.float64: 53, dtypes.float32: 24, dtypes.float16: 24, dtypes.bfloat16: 24}
_REDUCED = (dtypes.float16, dtypes.bfloat16)
_TWO_PI = 2.0 * math.pi  # 2.0f * M_PI: the float is widened to double


def _split(a):
    c = 134217729.0 * a  # Veltkamp: 2**27 + 1
    high = c - (c - a)
    return high, a - high


def fma(a, b, c):
    """a * b + c rounded once, in double (PyTorch's compiler contracts these into FMA
    instructions): Dekker's exact product and Knuth's exact sum, then one rounding."""
    a, b, c = np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    with np.errstate(all="ignore"):
        product = a * b
        (ah, al), (bh, bl) = _split(a), _split(b)
        product_error = ((ah * bh - product) + ah * bl + al * bh) + al * bl
        total = product + c
        back = total - product
        sum_error = (product - (total - back)) + (c - back)
        fused = total + (product_error + sum_error)
    return np.where(np.isfinite(fused), fused, total)  # inf and nan as the plain sum has them


def uniform(gen, n: int, dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """uniform_real_distribution<T>(low, high): n values of `dtype` (a real floating type).

    `x * (high - low) + low` for x in [0, 1), fused. Half and bfloat16 are drawn as float
    and rounded; a value that rounds up to `high` (which the distribution excludes)
    becomes `low`, as PyTorch's kernel has it."""
    digits = _DIGITS[dtype]
    words = gen.engine.random64(n) if dtype is dtypes.float64 else gen.engine.random(n)
    mask = np.uint64((1 << digits) - 1)
    x = (words & mask).astype(np.float64) * 2.0**-digits
    if dtype is dtypes.float64:
        values = x if (low, high) == (0.0, 1.0) else fma(x, high - low, low)
        return values
    low, high = (float(np.array(v).astype(dtype.np_dtype)) for v in (low, high))  # scalar_t
    low32, span32 = np.float32(low), np.float32(high) - np.float32(low)
    # the float product is exact in double, so one double sum rounded to float is fused
    values = (x * np.float64(span32) + np.float64(low32)).astype(np.float32)
    if dtype in _REDUCED:
        values = values.astype(dtype.np_dtype)
        values[values == dtype.np_dtype.type(high)] = low
        return values
    return values


def _normal_scalar(gen, n: int, mean: float, std: float) -> np.ndarray:
    """normal_distribution<double>, one value at a time (the generator caches the sine)."""
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        cached = gen.next_double_normal
        if cached is not None:
            gen.next_double_normal = None
            out[i] = cached
            continue
        u1, u2 = uniform(gen, 2, dtypes.float64)
        radius = math.sqrt(-2.0 * math.log1p(-float(u2)))
        theta = _TWO_PI * float(u1)
        gen.next_double_normal = radius * math.sin(theta)
        out[i] = radius * math.cos(theta)
    return out if (mean, std) == (0.0, 1.0) else fma(out, std, mean)


def _fill_16(data: np.ndarray, mean, std) -> None:
    """normal_fill_16 on every block of 16 in `data` (whose length is a multiple of 16)."""
    blocks = data.reshape(-1, 16)
    u1 = 1 - blocks[:, :8]
    u2 = blocks[:, 8:]
    if data.dtype == np.float64:
        radius = np.sqrt(-2 * np.log(u1))
        theta = _TWO_PI * u2
        for half, trig in ((slice(0, 8), np.cos), (slice(8, 16), np.sin)):
            value = radius * trig(theta)
            blocks[:, half] = value if (mean, std) == (0.0, 1.0) else fma(value, std, mean)
        return
    # float: float arithmetic throughout (theta = 2*pi*u2 too); a correctly rounded float
    # log/sqrt/cos/sin is double's, rounded; the final `* std + mean` is fused.
    f32 = np.float32
    log_u1 = np.log(u1.astype(np.float64)).astype(f32)
    radius = np.sqrt((-2 * log_u1).astype(np.float64)).astype(f32)
    theta = (f32(_TWO_PI) * u2).astype(np.float64)
    for half, trig in ((slice(0, 8), np.cos), (slice(8, 16), np.sin)):
        value = (radius * trig(theta).astype(f32)).astype(np.float64)
        blocks[:, half] = (value * np.float64(f32(std)) + np.float64(f32(mean))).astype(f32)


def normal(gen, n: int, dtype, mean=0.0, std=1.0, fill: bool = True) -> np.ndarray:
    """normal_kernel on n elements of `dtype` (a real floating type): in blocks of 16 when
    `fill` (a contiguous tensor) and n >= 16, else one at a time in double."""
    if n < 16 or not fill:
        return _normal_scalar(gen, n, mean, std).astype(dtype.np_dtype)
    reduced = dtype in _REDUCED  # computed in float, in blocks of 16, then rounded
    kind = dtypes.float32 if reduced else dtype
    whole = n - n % 16
    # float and double draw every element's uniform first, half and bfloat16 only the
    # whole blocks'; then each tail draws 16 more and rewrites the last 16 elements
    data = uniform(gen, whole if reduced else n, kind)
    _fill_16(data[:whole], mean, std)
    if whole != n:
        tail = uniform(gen, 16, kind)
        _fill_16(tail, mean, std)
        data = np.concatenate([data[: n - 16], tail])
    return data.astype(dtype.np_dtype, copy=False)


def random_from_to(gen, n: int, low: int, high: int) -> np.ndarray:
    """uniform_int_from_to_distribution: `word % range + low`, as int64; a range of 2**28
    or more takes 64-bit words."""
    span = high - low
    words = gen.engine.random64(n) if span >= 1 << 28 else gen.engine.random(n)
    return (words % np.uint64(span)).astype(np.int64) + np.int64(low)


def bernoulli(gen, n: int, p: float) -> np.ndarray:
    """bernoulli_distribution<double>(p) n times (PyTorch's portable CPU kernel)."""
    return uniform(gen, n, dtypes.float64) < p


def memory_order(t) -> list[int]:
    """t's dims, outermost first, in the order of its strides: the order TensorIterator
    visits a single dense operand's elements in."""
    return sorted(range(t.dim()), key=lambda d: -t._strides[d])


def write_in_memory_order(t, values: np.ndarray) -> None:
    """Store values drawn in TensorIterator's order (t's memory order) into t."""
    view = t.ndarray().transpose(memory_order(t))
    view[...] = values.reshape(view.shape)
